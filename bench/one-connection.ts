// Scenario 2: one keep-alive connection, one request at a time. Without queueing, the
// difference from the direct target is the per-request cost a proxy adds.
import { Pool } from 'undici';
import { hrMs, spread, type Spread } from './stats.js';
import { timedRequest } from './timed-request.js';

export interface OneConnectionOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  requests: number;
  /** Unmeasured requests run for this long first (see streams.ts for why by time). */
  warmupMs: number;
}

export interface OneConnectionResult {
  latency: Spread;
  failures: number;
}

export async function measureOneConnection(o: OneConnectionOptions): Promise<OneConnectionResult> {
  const pool = new Pool(o.origin, { connections: 1, pipelining: 1 });
  const samples: number[] = [];
  let failures = 0;
  try {
    const warmupEnds = performance.now() + o.warmupMs;
    while (performance.now() < warmupEnds) await timedRequest(pool, o);
    for (let i = 0; i < o.requests; i++) {
      const t = await timedRequest(pool, o);
      if (t.status !== 200) failures++;
      else samples.push(hrMs(t.start, t.end));
    }
  } finally {
    await pool.close();
  }
  return { latency: spread(samples), failures };
}
