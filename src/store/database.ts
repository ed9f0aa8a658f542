import Database from 'better-sqlite3';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Db = Database.Database;

const SCHEMA_PATH = fileURLToPath(new URL('../../../schema.sql', import.meta.url));

/** Opens the database in WAL mode and applies the migrations of schema.sql it has not seen. */
export function openDatabase(path: string, opts: { readonly?: boolean } = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: opts.readonly ?? false });
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a commit is durable against process death; only an OS crash can lose the last ones.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  }
  return db;
}

interface Migration {
  version: number;
  sql: string;
}

export function readMigrations(text = readFileSync(SCHEMA_PATH, 'utf8')): Migration[] {
  const parts = text.split(/^-- migration: (\d+)\s*$/m);
  const out: Migration[] = [];
  for (let i = 1; i < parts.length; i += 2) out.push({ version: Number(parts[i]), sql: parts[i + 1] });
  return out;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of readMigrations()) {
    if (m.version <= current) continue;
    // IMMEDIATE: two processes starting at once must not both apply the same section.
    db.transaction(() => {
      const seen = db.pragma('user_version', { simple: true }) as number;
      if (seen >= m.version) return;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
}
