// Scenario 3: a few concurrent SSE streams. Time to first byte is what a chat user feels;
// total time shows whether the proxy holds chunks back.
import { Pool } from 'undici';
import type { CpuPerRequest, CpuProbe } from './cpu-time.js';
import { hrMs, spread, type Spread } from './stats.js';
import { timedRequest } from './timed-request.js';

export interface StreamsOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  concurrency: number;
  streams: number;
  /** Unmeasured streams run for this long first: count-based warm-ups of ~100 streams left
   * the first measured streams 2-5x slower than later ones (JIT, pool growth). */
  warmupMs: number;
  /** What the last write of a finished stream holds (default `data: [DONE]`). */
  done?: Buffer;
  /** Read around the measured streams (from the first one's start to the last one's end). */
  cpu?: CpuProbe;
}

export interface StreamsResult {
  ttfb: Spread;
  total: Spread;
  failures: number;
  /** CPU per measured stream. */
  cpu: CpuPerRequest | null;
}

const DONE = Buffer.from('data: [DONE]');

export async function measureStreams(o: StreamsOptions): Promise<StreamsResult> {
  const pool = new Pool(o.origin, { connections: o.concurrency, pipelining: 1 });
  const ttfb: number[] = [];
  const total: number[] = [];
  let failures = 0;
  let measuredStarted = 0;
  const warmupEnds = performance.now() + o.warmupMs;
  const done = o.done ?? DONE;

  const worker = async (): Promise<void> => {
    while (measuredStarted < o.streams) {
      const measured = performance.now() >= warmupEnds;
      if (measured && measuredStarted++ === 0) o.cpu?.start();
      try {
        const t = await timedRequest(pool, o);
        if (t.status !== 200 || !t.tail.includes(done)) failures += measured ? 1 : 0;
        else if (measured) {
          ttfb.push(hrMs(t.start, t.firstByte));
          total.push(hrMs(t.start, t.end));
        }
      } catch {
        failures += measured ? 1 : 0;
      }
    }
  };

  let cpu: CpuPerRequest | null = null;
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
    // Streams still in the warm-up when the probe started overlap its first ~10 ms: noise.
    cpu = o.cpu?.stop(measuredStarted) ?? null;
  } finally {
    await pool.close();
  }
  return { ttfb: spread(ttfb), total: spread(total), failures, cpu };
}
