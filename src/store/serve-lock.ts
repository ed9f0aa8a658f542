import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** Who serves a database: written by the gateway that holds its lock. */
export interface ServeHolder {
  pid: number;
  hostname: string;
  /** The address it listens on; port 0 until it is listening. */
  host: string;
  port: number;
  startedAt: number;
}

export interface ServeLock {
  /** Records the address once the server listens (port 0 resolves to a real port). */
  listening(host: string, port: number): void;
  release(): void;
}

/** The lock file beside the database. */
export function lockPath(dbPath: string): string {
  return `${dbPath}.lock`;
}

const SETUP = 'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER, hostname TEXT, host TEXT, port INTEGER, started_at INTEGER)';

/**
 * One gateway per database. The lock is SQLite's own write lock on a small file beside the
 * database (`<db>.lock`): the holder keeps a write transaction open for as long as it runs, so
 * the kernel releases it when the process ends in any way (stop, crash, SIGKILL) and a dead
 * holder never blocks the next start. A pid written in a file would need a liveness guess, and a
 * recycled pid would look alive. The holder's pid and address are committed before the lock is
 * taken, so whoever finds it busy can name the gateway that holds it.
 *
 * Takes the lock or returns the live holder. waitMs covers the instant an operator's `gw`
 * command checks the lock (see serveHolder), which would otherwise look like a gateway.
 */
export function acquireServeLock(dbPath: string, me: ServeHolder, waitMs = 1_000): ServeLock | { heldBy: ServeHolder | null } {
  if (dbPath === ':memory:') return { listening() {}, release() {} };
  mkdirSync(dirname(dbPath), { recursive: true });
  const db = new Database(lockPath(dbPath));
  db.pragma(`busy_timeout = ${waitMs}`);
  try {
    db.exec(SETUP);
    // Record who we are, then hold the write lock: a rival that commits between the two wins,
    // and we read its row instead.
    writeHolder(db, me);
    db.exec('BEGIN IMMEDIATE');
  } catch (e) {
    if ((e as { code?: string }).code !== 'SQLITE_BUSY') {
      db.close();
      throw e;
    }
    const found = readHolder(db);
    db.close();
    // Our own row: a rival took the lock in the instant between our commit and BEGIN.
    return { heldBy: found && found.pid === me.pid && found.hostname === me.hostname ? null : found };
  }
  let released = false;
  return {
    listening(host, port) {
      // Committing lets go for an instant; a gateway that starts in it sees our row, waits
      // (busy_timeout) and finds the lock taken again.
      db.prepare('UPDATE holder SET host = ?, port = ? WHERE id = 1').run(host, port);
      db.exec('COMMIT');
      db.exec('BEGIN IMMEDIATE');
    },
    release() {
      if (released) return;
      released = true;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

/**
 * The gateway serving this database, or null when none is running. Used by the operator CLI,
 * which works beside a running gateway and never takes the lock for longer than this check.
 */
export function serveHolder(dbPath: string): ServeHolder | null {
  if (dbPath === ':memory:' || !existsSync(lockPath(dbPath))) return null;
  const db = new Database(lockPath(dbPath), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_BUSY') return readHolder(db);
      throw e;
    }
    db.exec('ROLLBACK');
    return null;
  } finally {
    db.close();
  }
}

function writeHolder(db: Database.Database, h: ServeHolder): void {
  db.prepare('INSERT OR REPLACE INTO holder (id, pid, hostname, host, port, started_at) VALUES (1, ?, ?, ?, ?, ?)')
    .run(h.pid, h.hostname, h.host, h.port, h.startedAt);
}

function readHolder(db: Database.Database): ServeHolder | null {
  try {
    const r = db.prepare('SELECT pid, hostname, host, port, started_at FROM holder WHERE id = 1').get() as
      { pid: number; hostname: string; host: string; port: number; started_at: number } | undefined;
    return r ? { pid: r.pid, hostname: r.hostname, host: r.host, port: r.port, startedAt: r.started_at } : null;
  } catch {
    return null; // the holder is between creating the file and its first commit
  }
}
