import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A real Redis server the test started. */
export interface RedisServer {
  /** redis://127.0.0.1:port */
  url: string;
  port: number;
  /** Kills it (SIGKILL: Redis unreachable, as after a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port }, () => s.write('PING\r\n'));
    s.once('data', (d) => { s.destroy(); resolve(d.toString().startsWith('+PONG')); });
    s.once('error', () => resolve(false));
  });
}

/**
 * Debian's redis-server on a free loopback port, in a temp folder, persisting nothing
 * (`--save ''`, no append-only file). Throws with the install command when it is missing.
 */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
  let child: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' });
    child = c;
    const failed = new Promise<never>((_, reject) => c.once('error', (e) => reject(new Error(
      `redis-server could not start (${(e as Error).message}): run \`sh scripts/install-servers.sh\` (Debian's redis-server package)`))));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (await Promise.race([ping(port), failed])) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 10 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const kill = async (): Promise<void> => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
  };
  await launch();
  process.once('exit', () => { child?.kill('SIGKILL'); });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
