import { randomFillSync } from 'node:crypto';

/** A W3C trace context a client sent (traceparent): its trace, and the span the request is a child of. */
export interface IncomingTrace {
  traceId: string;
  parentId: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** A valid `traceparent` (version 00) or null: a malformed one starts a new trace, as the W3C spec says. */
export function parseTraceparent(header: string | undefined): IncomingTrace | null {
  if (header === undefined || header === '') return null;
  const m = TRACEPARENT.exec(header.trim().toLowerCase());
  if (m === null || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return null;
  return { traceId: m[1], parentId: m[2] };
}

// Ids come from a pool of random bytes refilled 4 KiB at a time: a randomBytes call per id went
// through OpenSSL's parameter and cipher setup each time, ~10k instructions a traced request for
// its three ids (bench:instructions, gateway-traced). Still from the CSPRNG, as W3C asks ids to be
// unpredictable enough not to collide.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

function randomHex(bytes: number): string {
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

/** The header a provider is sent: this trace, with the attempt's span as the parent, sampled. */
export const traceparent = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;
