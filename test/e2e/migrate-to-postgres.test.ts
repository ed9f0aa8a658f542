import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../src/store/database.js';
import { connectPostgres } from '../../src/store/postgres/pg-database.js';
import { runMain, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { bearer, chatBody } from '../support/wait.js';

// `gw migrate --to postgres://…` moves a SQLite deployment to PostgreSQL: every row of every
// table, ids included, and refuses while a gateway serves the file or when the target is not empty.

let gw: GatewayProcess;
let provider: MockProvider;
let pg: PostgresServer;

test.before(async () => {
  [provider, pg] = await Promise.all([startMockProvider(), startPostgres()]);
  gw = await startGateway({ providers: { groq: { baseUrl: provider.url, apiKey: 'k' } } });
  const { key, keyId } = await gw.orgAndKey({ credit: 50, name: 'Ärzte & Co' });
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
    assert.is(res.status, 200);
    await res.text();
  }
  await gw.cli('key', 'limits', keyId, '--rpm', '30');
  await gw.cli('promo', 'create', 'DIWALI', '--bonus-inr', '10');
});
test.after(async () => {
  await gw.cleanup();
  pg.stop();
  await provider.close();
});

const migrate = (url: string) => runMain(['--config', gw.configPath, '--json', 'migrate', '--to', url], { timeoutMs: 60_000 });

test('refused while a gateway serves the database', async () => {
  const run = await migrate(pg.url);
  assert.is(run.code, 2, run.stderr);
  assert.match(run.stderr, 'stop it first');
});

test('after a graceful stop, every row of every table lands in PostgreSQL, ids and sequences included', async () => {
  assert.is(await gw.stop('SIGTERM'), 0);
  const run = await migrate(pg.url);
  assert.is(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout.trim());
  const lite = openDatabase(gw.dbPath, { readonly: true });
  const sql = connectPostgres(pg.url, { max: 1 });
  try {
    const tables = lite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    assert.equal(report.tables.map((t: { table: string }) => t.table).sort(), tables);
    let compared = 0;
    for (const t of tables) {
      const cols = (lite.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
      const order = cols.map((_, i) => i + 1).join(', ');
      const a = lite.prepare(`SELECT ${cols.join(', ')} FROM ${t} ORDER BY ${order}`).raw().all();
      const b = [...(await sql.unsafe(`SELECT ${cols.join(', ')} FROM ${t} ORDER BY ${order}`).values())].map((r) => [...r]);
      assert.equal(b, a, t);
      compared += a.length;
    }
    assert.ok(compared >= 5 + 5, 'the ledger rows and the rest were compared');
    assert.is(report.rows, compared);
    // The ledger's ids go on after the copied ones.
    const [{ next }] = await sql`SELECT nextval(pg_get_serial_sequence('usage', 'id')) AS next`;
    assert.is(next, (lite.prepare('SELECT MAX(id) FROM usage').pluck().get() as number) + 1);
  } finally {
    lite.close();
    await sql.end();
  }
});

test('a target that already has organisations is refused, and nothing is written', async () => {
  const run = await migrate(pg.url);
  assert.is(run.code, 1);
  assert.match(run.stderr, 'already has organisations');
  assert.match(run.stderr, 'nothing was written');
});

test('a bad target URL is a usage error', async () => {
  const run = await migrate('mysql://x');
  assert.is(run.code, 2);
  assert.match(run.stderr, 'migrate needs --to postgres://');
});

test.run();
