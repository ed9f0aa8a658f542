import { randomBytes } from 'node:crypto';

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

export const newTraceId = (): string => randomBytes(16).toString('hex');
export const newSpanId = (): string => randomBytes(8).toString('hex');

/** The header a provider is sent: this trace, with the attempt's span as the parent, sampled. */
export const traceparent = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;
