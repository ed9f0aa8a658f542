const BUCKETS = 60;
const BUCKET_MS = 1_000;

/**
 * Requests in the rolling last minute, kept as 60 one-second buckets: constant memory whatever
 * the limit (a log of timestamps would need one slot per allowed request), exact to the second,
 * which is the resolution of retry-after anyway.
 */
export class SlidingWindow {
  readonly #counts = new Uint32Array(BUCKETS);
  /** Second (epoch seconds) each bucket currently holds. */
  readonly #second = new Float64Array(BUCKETS).fill(-1);
  #total = 0;
  /** The second of the last expiry: within one second nothing more can leave the window. */
  #expiredAt = -1;

  #expire(nowSecond: number): void {
    if (nowSecond === this.#expiredAt) return;
    this.#expiredAt = nowSecond;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.#second[i] !== -1 && this.#second[i] <= nowSecond - BUCKETS) {
        this.#total -= this.#counts[i];
        this.#counts[i] = 0;
        this.#second[i] = -1;
      }
    }
  }

  /** Requests counted in the last 60 s. */
  count(now: number): number {
    this.#expire(Math.floor(now / BUCKET_MS));
    return this.#total;
  }

  add(now: number): void {
    const s = Math.floor(now / BUCKET_MS);
    const i = s % BUCKETS;
    if (this.#second[i] !== s) {
      this.#total -= this.#counts[i];
      this.#counts[i] = 0;
      this.#second[i] = s;
    }
    this.#counts[i]++;
    this.#total++;
  }

  /**
   * Seconds until the window holds fewer than `limit` requests, i.e. until a request would pass:
   * walk the buckets oldest first until enough of them have left the window.
   */
  retryAfterSeconds(now: number, limit: number): number {
    const nowSecond = Math.floor(now / BUCKET_MS);
    this.#expire(nowSecond);
    let excess = this.#total - limit + 1;
    if (excess <= 0) return 0;
    for (let age = BUCKETS - 1; age >= 0; age--) {
      const s = nowSecond - age;
      const i = ((s % BUCKETS) + BUCKETS) % BUCKETS;
      if (this.#second[i] !== s) continue;
      excess -= this.#counts[i];
      if (excess <= 0) return Math.max(1, Math.ceil(((s + BUCKETS) * BUCKET_MS - now) / 1000));
    }
    return BUCKETS;
  }
}
