import { errors } from '../errors/catalog.js';
import { sseErrorEvent } from '../errors/envelope.js';
import { SseScanner } from '../lib/sse-scanner.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import type { UpstreamResponse } from '../providers/types.js';
import type { ClientReply } from '../domain/client-reply.js';
import { RouteFailure } from './route-failure.js';
import { transportFailure } from './upstream-client.js';

export interface RelayOutcome {
  usage: TokenUsage | null;
  aborted: boolean;
  /** Set when the upstream stream broke after bytes reached the client. */
  failure: RouteFailure | null;
}

/**
 * Forwards an upstream SSE stream byte for byte, honouring the client's backpressure, while a
 * scanner notes usage and [DONE]. Whatever has already arrived goes out in one write, the end
 * included when the upstream has finished, so a short stream costs the client one packet. A
 * stream that breaks, or ends without [DONE], is closed with a final `data: {"error":…}` event
 * and `[DONE]`, so the client never mistakes it for a clean end.
 */
export async function relayStream(reply: ClientReply, res: UpstreamResponse, first: Buffer,
  headers: Record<string, string>): Promise<RelayOutcome> {
  const scanner = new SseScanner();
  scanner.push(first);
  if (reply.aborted) {
    res.cancel();
    return { usage: scanner.usage, aborted: true, failure: null };
  }
  let writable = true;
  let outcome: RelayOutcome | null = null;
  // One cork: the head and first chunk (`c` null) or chunk `c`, then every chunk that has
  // arrived meanwhile, then the end if it is in.
  const flush = (c: Buffer | null): void => reply.batch(() => {
    writable = c === null ? reply.streamStart(200, 'text/event-stream; charset=utf-8', headers, first) : reply.streamWrite(c);
    writable = forwardArrived(reply, res, scanner) && writable;
    if (res.finished) outcome = end(reply, scanner, null);
  });
  flush(null);
  while (outcome === null) {
    if (!writable) await reply.drained();
    if (reply.aborted) {
      res.cancel();
      return { usage: scanner.usage, aborted: true, failure: null };
    }
    let chunk: Buffer | null;
    try {
      chunk = await res.next();
    } catch (e) {
      return end(reply, scanner, transportFailure(e));
    }
    if (chunk === null) return end(reply, scanner, null);
    scanner.push(chunk);
    if (reply.aborted) continue;
    flush(chunk);
  }
  return outcome;
}

/** Writes every chunk already received; false if the client pushed back. */
function forwardArrived(reply: ClientReply, res: UpstreamResponse, scanner: SseScanner): boolean {
  let writable = true;
  for (let c = res.take(); c !== null; c = res.take()) {
    scanner.push(c);
    writable = reply.streamWrite(c);
  }
  return writable;
}

function end(reply: ClientReply, scanner: SseScanner, broken: RouteFailure | null): RelayOutcome {
  if (reply.aborted) return { usage: scanner.usage, aborted: true, failure: null };
  let failure = broken;
  if (failure === null && !scanner.done) failure = new RouteFailure('stream_interrupted', 'upstream ended the stream without [DONE]');
  if (failure === null) {
    reply.streamEnd();
    return { usage: scanner.usage, aborted: false, failure: null };
  }
  const event = sseErrorEvent(errors.streamInterrupted(failure.message));
  reply.streamEnd(scanner.atEventBoundary ? event : `\n\n${event}`);
  return {
    usage: scanner.usage, aborted: false,
    failure: failure.code === 'stream_interrupted' ? failure : new RouteFailure('stream_interrupted', failure.message),
  };
}
