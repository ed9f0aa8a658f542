const WINDOW = 64;

/**
 * Recent latency and speed of one route, for `optimize: latency | throughput`. A fixed ring of
 * samples; the p95 is recomputed only when asked after new samples arrived.
 */
export class RouteStats {
  readonly #latency = new Float64Array(WINDOW);
  #count = 0;
  #next = 0;
  #p95: number | null = null;
  #tokensPerSecond = 0;

  record(latencyMs: number, completionTokens: number, generationMs: number): void {
    this.#latency[this.#next] = latencyMs;
    this.#next = (this.#next + 1) % WINDOW;
    if (this.#count < WINDOW) this.#count++;
    this.#p95 = null;
    if (completionTokens > 0 && generationMs > 0) {
      const tps = (completionTokens * 1000) / generationMs;
      // EWMA: recent speed matters more than history, without keeping a second ring.
      this.#tokensPerSecond = this.#tokensPerSecond === 0 ? tps : this.#tokensPerSecond * 0.8 + tps * 0.2;
    }
  }

  get samples(): number {
    return this.#count;
  }

  p95(): number | null {
    if (this.#count === 0) return null;
    if (this.#p95 === null) {
      const sorted = Array.from(this.#latency.subarray(0, this.#count)).sort((a, b) => a - b);
      this.#p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
    }
    return this.#p95;
  }

  tokensPerSecond(): number | null {
    return this.#tokensPerSecond > 0 ? this.#tokensPerSecond : null;
  }
}

export class RouteStatsBook {
  readonly #byRoute = new Map<string, RouteStats>();

  for(routeId: string): RouteStats {
    let s = this.#byRoute.get(routeId);
    if (!s) this.#byRoute.set(routeId, (s = new RouteStats()));
    return s;
  }
}
