import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A real PostgreSQL server the test started: its URL and how to stop it. */
export interface PostgresServer {
  /** postgres://gw@127.0.0.1:port/gw */
  url: string;
  port: number;
  /** A fresh, empty database on the same server (for a test that wants its own). */
  createDatabase(name: string): string;
  /** Stops the server immediately (as a crash would) or cleanly; removes its folder. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Stops the server (as a crash would), keeping its data: PostgreSQL unreachable until resume(). */
  pause(): void;
  /** Starts it again on the same port and data. */
  resume(): void;
}

const BIN = (() => {
  const root = '/usr/lib/postgresql';
  let versions: string[] = [];
  try {
    versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  } catch { /* not installed */ }
  return versions.length ? join(root, versions[0], 'bin') : null;
})();

/**
 * Debian's PostgreSQL in a temp folder on a free loopback port (initdb, then pg_ctl), trusting
 * local connections, with one database `gw` owned by `gw`. PostgreSQL refuses to run as root, so
 * as root the server runs as the `postgres` user the Debian package creates. Throws with the
 * install command when the package is missing: under CI=true nothing may skip.
 */
export async function startPostgres(): Promise<PostgresServer> {
  if (!BIN) throw new Error('PostgreSQL is not installed: run `sh scripts/install-servers.sh` (Debian\'s postgresql package)');
  const dir = mkdtempSync(join(tmpdir(), 'gw-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : null;
  if (owner !== null) {
    chownSync(dir, owner, Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
    chmodSync(dir, 0o700);
  }
  const run = (cmd: string, args: string[]): void => {
    const argv = asRoot ? ['-u', 'postgres', '--', join(BIN, cmd), ...args] : args;
    execFileSync(asRoot ? 'runuser' : join(BIN, cmd), argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  run('initdb', ['-D', data, '-U', 'gw', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '-A', 'trust']);
  const port = await freePort();
  // fsync off: a test server's data need not survive an OS crash. Commits stay synchronous (written
  // to the OS before they return), so a server stopped like a crash keeps every commit it acknowledged.
  const start = (): void => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`, 'start']);
  start();
  const psql = (sql: string): void => {
    execFileSync(join(BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'gw', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql],
      { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  psql('CREATE DATABASE gw');
  let stopped = false;
  const stop = (mode: 'fast' | 'immediate' = 'fast'): void => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', () => stop('immediate'));
  return {
    url: `postgres://gw@127.0.0.1:${port}/gw`,
    port,
    createDatabase(name) {
      psql(`CREATE DATABASE "${name}"`);
      return `postgres://gw@127.0.0.1:${port}/${name}`;
    },
    stop,
    pause: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    resume: start,
  };
}

