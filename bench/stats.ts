// Nearest-rank percentiles over raw samples: the sample counts here are small enough that
// sorting beats the approximation of a histogram.
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function sortedCopy(samples: number[]): Float64Array {
  return Float64Array.from(samples).sort();
}

export interface Spread {
  p50: number;
  p99: number;
  count: number;
}

export function spread(samples: number[]): Spread {
  const s = sortedCopy(samples);
  return { p50: percentile(s, 50), p99: percentile(s, 99), count: s.length };
}

export function hrMs(start: bigint, end: bigint): number {
  return Number(end - start) / 1e6;
}
