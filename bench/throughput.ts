// Scenario 1: many connections, non-streaming, as fast as the target answers.
import autocannon from 'autocannon';
import { spread, type Spread } from './stats.js';

export interface ThroughputResult {
  rps: number;
  latency: Spread;
  non2xx: number;
  errors: number;
}

export interface ThroughputOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationS: number;
  warmupS: number;
}

export async function measureThroughput(o: ThroughputOptions): Promise<ThroughputResult> {
  // autocannon's own histogram keeps whole milliseconds; the raw response times keep the
  // fractions that distinguish a 0.3 ms proxy from a 0.9 ms one.
  const latencies: number[] = [];
  const instance = autocannon({
    url: o.url,
    method: 'POST',
    headers: o.headers,
    body: o.body,
    connections: o.connections,
    duration: o.durationS,
    timeout: 10,
    warmup: { connections: o.connections, duration: o.warmupS },
  });
  instance.on('response', (_client, _status, _bytes, ms) => void latencies.push(ms));
  const result = await instance;
  return {
    rps: result.requests.total! / result.duration,
    latency: spread(latencies),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
