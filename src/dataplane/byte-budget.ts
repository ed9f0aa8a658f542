/**
 * Bytes the gateway may hold at once across every upstream answer it is buffering whole. Each
 * answer is capped by upstream.maxResponseBytes; this caps their sum, so many large answers
 * arriving together cannot exhaust memory. Streams are not counted: each holds at most a few
 * chunks, and a slow client pauses its upstream.
 */
export class ByteBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  /** Reserves n bytes; false (and nothing reserved) if that would pass the limit. */
  take(n: number): boolean {
    if (this.#used + n > this.limit) return false;
    this.#used += n;
    return true;
  }

  give(n: number): void {
    this.#used -= n;
  }
}
