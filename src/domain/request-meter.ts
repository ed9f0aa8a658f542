/**
 * Where the HTTP layer and the data plane report what the metrics count, besides the usage
 * records (which reach the metrics as a tee of the ledger's sink). Implemented by
 * src/metrics/gateway-metrics.ts; absent when metrics are off, so nothing is measured then.
 */

/** One route's answers, resolved once when the route is registered. */
export interface AnswerMeter {
  /** An answer ended: its status, its error code (null for none) and the seconds since the request arrived. */
  answered(status: number, code: string | null, seconds: number): void;
}

/** Hands out each route's meter (`route` is its path pattern, or `other` for unmatched paths). */
export interface AnswerMeters {
  forRoute(route: string): AnswerMeter;
}

/** Told by the data plane when an inference request was served, with the time the gateway itself spent on it. */
export interface ServedMeter {
  /**
   * `totalMs`: from the handler's start (the body read) to the serving attempt's end; `overheadMs`:
   * that, less the time spent in upstream attempts (the gateway's own work: admission, planning,
   * translation, failover between attempts, writing the answer).
   */
  served(endpoint: string, totalMs: number, overheadMs: number): void;
}

/** The meter when metrics are off: a no-op, so the data plane never checks a flag. */
export const NO_SERVED_METER: ServedMeter = { served() {} };
