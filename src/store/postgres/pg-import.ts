import type { Db } from '../database.js';
import type { Pg } from './pg-database.js';

/** A table copied: its name and rows. */
export interface CopiedTable {
  table: string;
  rows: number;
}

/** Rows a multi-row INSERT carries: well under PostgreSQL's 65,535 parameters for the widest table. */
const CHUNK = 1_000;

/**
 * Copies every row of a SQLite gateway database into an empty PostgreSQL one migrated to the
 * same version (`gw migrate`), in one PostgreSQL transaction: either all of it lands or none.
 * Tables go in creation order, so a row's references are copied before it; identity columns keep
 * their values and their sequences then continue after the largest one. Refuses a target that
 * already has an organisation, or whose schema version differs.
 */
export async function copySqliteToPostgres(db: Db, sql: Pg, progress?: (t: CopiedTable) => void): Promise<CopiedTable[]> {
  const liteVersion = db.pragma('user_version', { simple: true }) as number;
  const [v] = await sql<{ version: number }[]>`SELECT version FROM gw_schema_version WHERE one = 1`;
  if (!v || v.version !== liteVersion) {
    throw new Error(`schema versions differ: SQLite is at ${liteVersion}, PostgreSQL at ${v?.version ?? 'none'}; run both on the same gateway version`);
  }
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid").pluck().all() as string[];
  const copied: CopiedTable[] = [];
  // One snapshot of SQLite for the whole copy (a read transaction), one transaction on PostgreSQL.
  db.exec('BEGIN');
  try {
    await sql.begin(async (tx) => {
      const [org] = await tx`SELECT 1 FROM orgs LIMIT 1`;
      if (org) throw new Error('the PostgreSQL database already has organisations: migrate into an empty database');
      // Rows that a fresh schema seeds (the rollup's mark) are replaced by the source's.
      for (const t of tables) await tx.unsafe(`DELETE FROM ${quote(t)}`);
      for (const table of tables) {
        const columns = (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string }[]).map((c) => c.name);
        const read = db.prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`).raw();
        let rows = 0;
        let chunk: unknown[][] = [];
        const flush = async (): Promise<void> => {
          if (chunk.length === 0) return;
          const params: unknown[] = [];
          const values = chunk.map((r) => `(${r.map((x) => { params.push(x); return `$${params.length}`; }).join(', ')})`);
          // OVERRIDING SYSTEM VALUE: identity columns keep the ids the ledger and feeds are read by.
          await tx.unsafe(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) OVERRIDING SYSTEM VALUE VALUES ${values.join(', ')}`,
            params as never[]);
          rows += chunk.length;
          chunk = [];
        };
        for (const r of read.iterate() as IterableIterator<unknown[]>) {
          chunk.push(r.map(toPg));
          if (chunk.length === CHUNK) await flush();
        }
        await flush();
        const ids = await tx<{ column_name: string }[]>`SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${table} AND is_identity = 'YES'`;
        for (const { column_name: col } of ids) {
          await tx.unsafe(`SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT MAX(${quote(col)}) FROM ${quote(table)}), 0) + 1, false)`,
            [table, col]);
        }
        const t = { table, rows };
        copied.push(t);
        progress?.(t);
      }
    });
  } finally {
    db.exec('COMMIT');
  }
  return copied;
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** SQLite hands back BigInt only when asked; a Buffer would be a BLOB, which the schema has none of. */
function toPg(x: unknown): unknown {
  return typeof x === 'bigint' ? Number(x) : x;
}
