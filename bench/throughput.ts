// Scenario 1: many connections, non-streaming, as fast as the target answers.
import autocannon from 'autocannon';
import type { CpuPerRequest, CpuProbe } from './cpu-time.js';
import { spread, type Spread } from './stats.js';

export interface ThroughputResult {
  rps: number;
  latency: Spread;
  non2xx: number;
  errors: number;
  /** Measured over the timed run only, not the warm-up. */
  cpu: CpuPerRequest | null;
}

export interface ThroughputOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationS: number;
  warmupS: number;
  cpu?: CpuProbe;
}

export async function measureThroughput(o: ThroughputOptions): Promise<ThroughputResult> {
  // autocannon's own histogram keeps whole milliseconds; the raw response times keep the
  // fractions that distinguish a 0.3 ms proxy from a 0.9 ms one.
  const latencies: number[] = [];
  const common = { url: o.url, method: 'POST' as const, headers: o.headers, body: o.body, connections: o.connections, timeout: 10 };
  // The warm-up is its own run so that CPU time can be read around the timed one alone.
  await autocannon({ ...common, duration: o.warmupS });
  o.cpu?.start();
  const instance = autocannon({ ...common, duration: o.durationS });
  instance.on('response', (_client, _status, _bytes, ms) => void latencies.push(ms));
  const result = await instance;
  const cpu = o.cpu?.stop(result.requests.total!) ?? null;
  return {
    rps: result.requests.total! / result.duration,
    latency: spread(latencies),
    cpu,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
