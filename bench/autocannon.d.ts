// The subset of autocannon 8 the benchmarks use; the package ships no types and there is no
// @types/autocannon among our dependencies.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      connections?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      warmup?: { connections?: number; duration?: number };
    }
    interface Histogram {
      average: number;
      mean: number;
      min: number;
      max: number;
      total?: number;
      p50: number;
      p99: number;
    }
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      latency: Histogram;
      requests: Histogram & { sent: number };
    }
    interface Instance extends EventEmitter, PromiseLike<Result> {
      // (client, statusCode, resBytes, responseTimeMs) for every response of the measured run.
      on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void): this;
      on(event: string, listener: (...args: any[]) => void): this;
    }
  }

  function autocannon(opts: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
