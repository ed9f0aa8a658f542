// CPU time per request of each process in the load run, read from /proc (Linux). Requests per
// second on a shared 2-core machine move with everything else running on it; CPU time per
// request moves far less, and dividing a proxy's by the mock's in the same run cancels most of
// the drift that remains (a slower machine slows both alike).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface CpuPerRequest {
  /** The server under test: its main thread, and every other thread (workers, GC helpers). */
  serverMain: number | null;
  serverOther: number | null;
  mock: number | null;
  /** This process: autocannon and the bench's own bookkeeping. */
  loadGenerator: number;
}

export const TICK_US = 10_000; // USER_HZ is 100 on Linux

export interface Ticks {
  main: number;
  other: number;
}

/**
 * CPU time a process has used so far, its main thread and its other threads together, in ticks of
 * TICK_US (fractional). Read from each thread's schedstat (nanoseconds, what the scheduler ran it
 * for) where the kernel keeps it; /proc's utime and stime count whole 10 ms ticks, too coarse for a
 * run of a few hundred streams of ~0.2 ms each.
 */
export function threadTicks(pid: number): Ticks | null {
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return null;
  let main = 0;
  let other = 0;
  try {
    for (const tid of readdirSync(dir)) {
      const t = SCHEDSTAT ? Number(readFileSync(`${dir}/${tid}/schedstat`, 'utf8').split(' ')[0]) / (TICK_US * 1000) : statTicks(`${dir}/${tid}/stat`);
      if (Number(tid) === pid) main += t;
      else other += t;
    }
  } catch {
    return null; // a thread ended while being read, or the process is gone
  }
  return { main, other };
}

const SCHEDSTAT = existsSync('/proc/self/schedstat');

function statTicks(file: string): number {
  const stat = readFileSync(file, 'utf8');
  // Fields after the parenthesised name; utime and stime are the 14th and 15th of the line.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** Snapshots the processes' CPU time at start() and reports per request at stop(). */
export class CpuProbe {
  readonly #server: number | null;
  readonly #mock: number;
  #s0: Ticks | null = null;
  #m0: Ticks | null = null;
  #l0: NodeJS.CpuUsage | null = null;

  constructor(serverPid: number | null, mockPid: number) {
    this.#server = serverPid;
    this.#mock = mockPid;
  }

  start(): void {
    this.#s0 = this.#server === null ? null : threadTicks(this.#server);
    this.#m0 = threadTicks(this.#mock);
    this.#l0 = process.cpuUsage();
  }

  stop(requests: number): CpuPerRequest {
    const per = (ticks: number): number => (ticks * TICK_US) / Math.max(1, requests);
    const s1 = this.#server === null ? null : threadTicks(this.#server);
    const m1 = threadTicks(this.#mock);
    const l = process.cpuUsage(this.#l0 ?? undefined);
    const s0 = this.#s0;
    const m0 = this.#m0;
    return {
      serverMain: s0 && s1 ? per(s1.main - s0.main) : null,
      serverOther: s0 && s1 ? per(s1.other - s0.other) : null,
      mock: m0 && m1 ? per(m1.main + m1.other - m0.main - m0.other) : null,
      loadGenerator: (l.user + l.system) / Math.max(1, requests),
    };
  }
}
