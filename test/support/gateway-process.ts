import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

export interface MainRun {
  /** null when it had to be killed (it was still running at the timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/src/main.js ARGS` (the gateway or the CLI) to its end, with the tests' loopback
 * environment; kills it after timeoutMs, so a process that should have refused to run fails the
 * test instead of hanging it.
 */
export function runMain(args: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<MainRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], {
      cwd: opts.cwd, env: { ...process.env, GW_CONFIG: '', GW_DB: undefined, INIT_CWD: undefined, ...NO_PROXY_ENV, ...opts.env },
      timeout: opts.timeoutMs ?? 15_000, killSignal: 'SIGKILL',
    }, (err, stdout, stderr) => {
      const code = err === null ? 0 : err.killed ? null : typeof err.code === 'number' ? err.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

// A proxy in the machine's environment must not reroute the tests' loopback providers.
const NO_PROXY_ENV = { http_proxy: '', HTTP_PROXY: '', https_proxy: '', HTTPS_PROXY: '', all_proxy: '', ALL_PROXY: '', no_proxy: '', NO_PROXY: '' };

export interface GatewayProcess {
  url: string;
  port: number;
  dir: string;
  dbPath: string;
  configPath: string;
  proc: ChildProcess;
  /** Every stdout/stderr line so far. */
  lines: string[];
  /** Runs the `gw` CLI against the same database; returns parsed --json output. */
  cli(...args: string[]): Promise<any>;
  /** Creates an org (with credit) and a key; returns both. */
  orgAndKey(opts?: { credit?: number; name?: string; keyArgs?: string[] }): Promise<{ orgId: string; key: string; keyId: string }>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Starts the same gateway again (same database and config) after stop(). */
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

/** Starts the real gateway (`node dist/src/main.js serve`) on an ephemeral port with a fresh database. */
export async function startGateway(config: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
  const dbPath = join(dir, 'gw.db');
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ host: '127.0.0.1', port: 0, dbPath, logLevel: 'warn', ...config }));
  const childEnv = { ...process.env, GW_CONFIG: '', ...NO_PROXY_ENV, ...env };
  const gp = {
    url: '', port: 0, dir, dbPath, configPath, lines: [] as string[], proc: null as unknown as ChildProcess,
    async cli(...args: string[]) {
      const { stdout } = await run(process.execPath, [MAIN, '--config', configPath, '--json', ...args], { env: childEnv });
      return JSON.parse(stdout.trim().split('\n').pop()!);
    },
    async orgAndKey(opts: { credit?: number; name?: string; keyArgs?: string[] } = {}) {
      const org = await gp.cli('org', 'create', opts.name ?? 'acme', ...(opts.credit === undefined ? ['--credit', '1000'] : opts.credit > 0 ? ['--credit', String(opts.credit)] : []));
      const k = await gp.cli('key', 'create', '--org', org.id, '--name', `k${Math.random().toString(36).slice(2, 8)}`, ...(opts.keyArgs ?? []));
      return { orgId: org.id as string, key: k.key as string, keyId: k.id as string };
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const p = gp.proc;
      if (p.exitCode !== null || p.signalCode !== null) return p.exitCode;
      return new Promise<number | null>((resolve) => {
        p.once('exit', (code) => resolve(code));
        p.kill(signal);
      });
    },
    async restart() {
      await launch();
    },
    async cleanup() {
      await gp.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };

  async function launch(): Promise<void> {
    const proc = spawn(process.execPath, [MAIN, 'serve', '--config', configPath], { env: { ...childEnv, GW_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    gp.proc = proc;
    createInterface({ input: proc.stderr! }).on('line', (l) => gp.lines.push(l));
    const rl = createInterface({ input: proc.stdout! });
    gp.port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${gp.lines.join('\n')}`)), 15_000);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`gateway exited with ${code} before listening:\n${gp.lines.join('\n')}`));
      });
      rl.on('line', (l) => {
        gp.lines.push(l);
        if (l.includes('"msg":"listening"')) {
          clearTimeout(timer);
          resolve(JSON.parse(l).port);
        }
      });
    });
    gp.url = `http://127.0.0.1:${gp.port}`;
  }

  await launch();
  return gp;
}
