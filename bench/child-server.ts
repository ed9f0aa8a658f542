// Spawns a server as a child process and learns its port from a JSON line on its stdout.
// Every child is tracked so the bench can kill them all, even when it fails half-way.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ChildServer {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  readonly origin: string;
  /** Writes one JSON line to the child's stdin. */
  send(message: unknown): void;
  /** Resolves with the first later stdout line (parsed) that `match` accepts. */
  waitForLine(match: (line: string) => boolean, timeoutMs: number): Promise<string>;
  /** Resident set size from /proc, in MiB; null once the child is gone. */
  rssMiB(): number | null;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Returns the port when the line announces it. */
  portFrom: (line: string) => number | undefined;
  timeoutMs?: number;
  /** A command the child runs under (`valgrind --tool=callgrind …`); node and args follow it. */
  wrap?: readonly string[];
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((c) => terminate(c)));
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 2000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function startChild(name: string, opts: SpawnOptions): Promise<ChildServer> {
  const [command, ...args] = opts.wrap && opts.wrap.length > 0 ? [...opts.wrap, process.execPath, ...opts.args] : [process.execPath, ...opts.args];
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: 'pipe' });
  live.add(child);
  child.once('exit', () => live.delete(child));

  // Lines are split only while someone waits: a gateway logging every request would otherwise
  // spend the load generator's CPU on our own bookkeeping.
  let waiters: ((line: string) => void)[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (data: string) => {
    if (waiters.length === 0) return;
    const parts = (partial + data).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) for (const w of waiters.slice()) w(line);
  });
  let stderrTail = '';
  child.stderr!.setEncoding('utf8').on('data', (data: string) => {
    stderrTail = (stderrTail + data).slice(-2000);
  });

  const waitForLine = (match: (line: string) => boolean, timeoutMs: number): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const done = (err: Error | null, line = ''): void => {
        clearTimeout(timer);
        child.off('exit', onExit);
        child.off('error', onError);
        waiters = waiters.filter((w) => w !== waiter);
        if (waiters.length === 0) partial = '';
        if (err) reject(err);
        else resolve(line);
      };
      const waiter = (line: string): void => {
        if (match(line)) done(null, line);
      };
      const onExit = (code: number | null, signal: string | null): void =>
        done(new Error(`${name} exited (${signal ?? code}) before answering${stderrTail ? `: ${stderrTail.trim()}` : ''}`));
      const timer = setTimeout(() => done(new Error(`${name} said nothing useful within ${timeoutMs}ms` +
        `${stderrTail ? `: ${stderrTail.trim()}` : ''}`)), timeoutMs);
      const onError = (err: Error): void => done(err);
      child.once('exit', onExit);
      child.once('error', onError);
      waiters.push(waiter);
    });

  return waitForLine((line) => opts.portFrom(line) !== undefined, opts.timeoutMs ?? 15_000)
    .then((line) => {
      const port = opts.portFrom(line)!;
      return {
        name,
        pid: child.pid!,
        port,
        origin: `http://127.0.0.1:${port}`,
        send: (message: unknown) => void child.stdin!.write(JSON.stringify(message) + '\n'),
        waitForLine,
        rssMiB: () => readRssMiB(child.pid!),
        stop: () => terminate(child),
      };
    }, async (err: Error) => {
      await terminate(child);
      throw err;
    });
}

/** Resident set size of a process from /proc, in MiB; null once it is gone. */
export function readRssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** `{"port":N}` as printed by the bench's own child entries. */
export function plainPort(line: string): number | undefined {
  try {
    const port = (JSON.parse(line) as { port?: unknown }).port;
    return typeof port === 'number' ? port : undefined;
  } catch {
    return undefined;
  }
}
