/** A route's circuit as reported by /health and /v1/models. */
export type BreakerState = 'closed' | 'open' | 'half_open';
