/** One answer of the exact-match response cache (docs/cache.md), as the client was sent it. */
export interface CachedAnswer {
  status: number;
  contentType: string;
  /** The answer's own headers (x-gw-provider and the like); never the request id. */
  headers: Record<string, string>;
  body: Buffer;
  /** Sent as a stream (one SSE body); a hit replays it as one. */
  streamed: boolean;
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

/** The stored text of an answer (one JSON document, the body in base64). */
export function encodeAnswer(a: CachedAnswer): string {
  return JSON.stringify({ s: a.status, t: a.contentType, h: a.headers, b: a.body.toString('base64'), st: a.streamed });
}

export function decodeAnswer(text: string): CachedAnswer {
  const o = JSON.parse(text) as { s: number; t: string; h: Record<string, string>; b: string; st: boolean };
  return { status: o.s, contentType: o.t, headers: o.h, body: Buffer.from(o.b, 'base64'), streamed: o.st };
}
