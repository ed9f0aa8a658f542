/** Buckets per doubling: quantiles come out within about 9% of the true value. */
const PER_OCTAVE = 8;
const BUCKETS = 32 * PER_OCTAVE;

/**
 * A log-scale histogram of non-negative values (milliseconds): constant memory, O(1) to add,
 * mergeable, and good enough for p50/p95 over days of traffic.
 */
export class LogHistogram {
  readonly counts = new Uint32Array(BUCKETS);
  total = 0;

  add(value: number): void {
    if (!(value >= 0)) return;
    const i = Math.min(BUCKETS - 1, Math.max(0, Math.floor(Math.log2(value + 1) * PER_OCTAVE)));
    this.counts[i]++;
    this.total++;
  }

  merge(other: LogHistogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i] += other.counts[i];
    this.total += other.total;
  }

  /** The q-quantile (0..1), as the middle of its bucket; null when empty. */
  quantile(q: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i];
      if (seen >= rank) return 2 ** ((i + 0.5) / PER_OCTAVE) - 1;
    }
    return null;
  }
}
