import postgres from 'postgres';
import { pgMigrations } from './pg-schema.js';

export type Pg = postgres.Sql;

export interface PgOptions {
  /** Connections in this process's pool. */
  max?: number;
  /** Seconds to wait for a connection before the query fails (PostgreSQL unreachable). */
  connectTimeoutSeconds?: number;
}

const INT8 = 20;
const NUMERIC = 1700;

/**
 * A pool of connections to the PostgreSQL at `url`. Every integer column is BIGINT (micro-rupees,
 * Unix milliseconds), which the driver would hand back as strings: they come back as numbers, as
 * SQLite's do, and so do SUM()s (NUMERIC). Every figure the gateway stores is below 2^53.
 */
export function connectPostgres(url: string, opts: PgOptions = {}): Pg {
  const asNumber = { to: INT8, from: [INT8, NUMERIC], serialize: (x: number) => String(x), parse: (x: string) => Number(x) };
  return postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeoutSeconds ?? 5,
    // A notice per `CREATE … IF NOT EXISTS` that found one is not worth a log line.
    onnotice: () => {},
    types: { bigint: asNumber },
    // Statements are named and prepared per connection by the driver (its default).
  });
}

/** Where the applied version is kept: PostgreSQL has no user_version. */
const VERSION_TABLE = 'CREATE TABLE IF NOT EXISTS gw_schema_version (one BIGINT PRIMARY KEY CHECK (one = 1), version BIGINT NOT NULL)';
/** Any fixed number names the lock; every gateway and `gw migrate` takes the same one. */
const MIGRATION_LOCK = 0x67770001;

/**
 * Applies the schema.sql sections the database has not seen. Several instances starting at once
 * each try; a transaction-scoped advisory lock lets one apply each section while the others wait,
 * then find it applied. Each section and its version move in one transaction (PostgreSQL's DDL
 * is transactional), so a crash mid-way leaves the database at a whole version. Returns the
 * version reached.
 */
export async function migratePostgres(sql: Pg): Promise<number> {
  const migrations = pgMigrations();
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx.unsafe(VERSION_TABLE);
    await tx.unsafe('CREATE EXTENSION IF NOT EXISTS citext');
  });
  let reached = 0;
  for (const m of migrations) {
    reached = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      const [row] = await tx<{ version: number }[]>`SELECT version FROM gw_schema_version WHERE one = 1`;
      const seen = row?.version ?? 0;
      if (seen >= m.version) return seen;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO gw_schema_version (one, version) VALUES (1, ${m.version})
               ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version`;
      return m.version;
    });
  }
  return reached;
}

/** Connects and migrates: what a gateway on PostgreSQL does at start. */
export async function openPostgres(url: string, opts: PgOptions = {}): Promise<Pg> {
  const sql = connectPostgres(url, opts);
  try {
    await migratePostgres(sql);
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw e;
  }
  return sql;
}
