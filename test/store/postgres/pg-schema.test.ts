import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../../src/store/database.js';
import { connectPostgres, migratePostgres } from '../../../src/store/postgres/pg-database.js';
import { pgMigrations, pgSchemaProblems } from '../../../src/store/postgres/pg-schema.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';

// schema.sql is the one source of both schemas: every section, rewritten, is portable; a real
// PostgreSQL, migrated by three processes at once, ends with SQLite's tables and columns.

let pg: PostgresServer;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.stop());

test('every section of schema.sql rewrites to PostgreSQL with nothing SQLite-only left', () => {
  const ms = pgMigrations();
  assert.ok(ms.length >= 17);
  for (const m of ms) assert.equal(pgSchemaProblems(m.sql), [], `migration ${m.version}`);
});

test('three processes migrating one database at once: each section applied once, all reach the last version', async () => {
  const script = `import { connectPostgres, migratePostgres } from ${JSON.stringify(new URL('../../../src/store/postgres/pg-database.js', import.meta.url).href)};
    const sql = connectPostgres(process.argv[1], { max: 2 });
    const v = await migratePostgres(sql); await sql.end(); console.log(v);`;
  const runs = await Promise.all([1, 2, 3].map(() => new Promise<{ code: number | null; out: string }>((resolve) => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', script, pg.url]);
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { out += d; });
    c.on('close', (code) => resolve({ code, out }));
  })));
  const last = pgMigrations().at(-1)!.version;
  for (const r of runs) {
    assert.is(r.code, 0, r.out);
    assert.is(Number(r.out.trim()), last, r.out);
  }
  // A fourth, later, finds nothing to do.
  const sql = connectPostgres(pg.url, { max: 1 });
  assert.is(await migratePostgres(sql), last);
  await sql.end();
});

test('PostgreSQL has the same tables and columns, in the same order and nullability, as SQLite', async () => {
  const lite = openDatabase(join(mkdtempSync(join(tmpdir(), 'gw-schema-')), 'gw.db'));
  const tables = (lite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]);
  const sql = connectPostgres(pg.url, { max: 1 });
  const pgTables = (await sql<{ table_name: string }[]>`SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name <> 'gw_schema_version' ORDER BY table_name`).map((r) => r.table_name);
  assert.equal(pgTables, tables);
  for (const t of tables) {
    const liteCols = (lite.prepare(`PRAGMA table_info(${t})`).all() as { name: string; notnull: number; pk: number }[])
      .map((c) => `${c.name}${c.notnull || (c.pk && tables.length) ? '' : '?'}`);
    const pgCols = (await sql<{ column_name: string; is_nullable: string }[]>`SELECT column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = ${t} ORDER BY ordinal_position`).map((c) => `${c.column_name}${c.is_nullable === 'NO' ? '' : '?'}`);
    // SQLite lets a non-INTEGER primary key column be NULL unless declared NOT NULL; PostgreSQL never does.
    assert.equal(pgCols.map((c) => c.replace('?', '')), liteCols.map((c) => c.replace('?', '')), t);
    assert.equal(pgCols.filter((c) => c.endsWith('?')), liteCols.filter((c) => c.endsWith('?')).filter((c) => pgCols.includes(c)), `${t} nullability`);
  }
  await sql.end();
  lite.close();
});

test('emails and promo codes compare case-insensitively, as COLLATE NOCASE does', async () => {
  const sql = connectPostgres(pg.url, { max: 1 });
  await sql`INSERT INTO users (id, email, created_at) VALUES ('u1', 'Asha@Example.com', 1)`;
  const [row] = await sql`SELECT id FROM users WHERE email = ${'asha@example.COM'}`;
  assert.is(row.id, 'u1');
  const dup = await sql`INSERT INTO users (id, email, created_at) VALUES ('u2', 'ASHA@example.com', 1)`.then(() => null, (e: { code?: string }) => e.code);
  assert.is(dup, '23505', 'unique violation');
  const [n] = await sql`SELECT balance_micros + 1 AS n, (SELECT COUNT(*) FROM users) AS c FROM (SELECT 9007199254740990::bigint AS balance_micros) x`;
  assert.equal([n.n, n.c], [9007199254740991, 1]);
  await sql.end();
});

test.run();
