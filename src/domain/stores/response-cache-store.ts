/** One answer of the exact-match response cache (docs/cache.md), as the client was sent it. */
export interface CachedAnswer {
  status: number;
  contentType: string;
  /** The answer's own headers (x-gw-provider and the like); never the request id. */
  headers: Record<string, string>;
  body: Buffer;
  /** Sent as a stream (one SSE body); a hit replays it as one. */
  streamed: boolean;
  /** What it cost when it was first served, in micro-rupees (as the ledger counts); a hit is billed a share of it. */
  costMicros: number;
}

/**
 * Where cached answers live: SQLite on one box (src/store/response-cache.ts), Redis with several
 * instances (src/cluster/redis-response-cache.ts). Keys already carry the org, so an answer is
 * never found from another org.
 */
export interface ResponseCacheStore {
  get(key: string, now: number): CachedAnswer | null | Promise<CachedAnswer | null>;
  put(key: string, orgId: string, answer: CachedAnswer, now: number, ttlMs: number): void | Promise<void>;
}

/**
 * The stored text of an answer (one JSON document, the body in base64). Its cost goes in it where
 * the store has no column of its own for it (Redis); SQLite keeps it in `cost_micros`.
 */
export function encodeAnswer(a: CachedAnswer, withCost: boolean): string {
  return JSON.stringify({ s: a.status, t: a.contentType, h: a.headers, b: a.body.toString('base64'), st: a.streamed, ...(withCost ? { c: a.costMicros } : {}) });
}

/** An answer from its text, with its cost from the store's column, else from the text; 0 for an entry stored before costs were. */
export function decodeAnswer(text: string, costMicros?: number): CachedAnswer {
  const o = JSON.parse(text) as { s: number; t: string; h: Record<string, string>; b: string; st: boolean; c?: number };
  return { status: o.s, contentType: o.t, headers: o.h, body: Buffer.from(o.b, 'base64'), streamed: o.st, costMicros: costMicros ?? o.c ?? 0 };
}
