import type { ClientReply } from '../domain/client-reply.js';
import type { UpstreamResponse } from '../providers/types.js';
import { RouteFailure, transportFailure } from './route-failure.js';

export interface ByteRelayOutcome {
  aborted: boolean;
  /** Set when the upstream broke after bytes reached the client; the client connection was then closed mid-body. */
  failure: RouteFailure | null;
}

/**
 * Forwards an upstream body of any type (speech audio) as it arrives, honouring the client's
 * backpressure, with whatever has already arrived in one write. A body the upstream breaks off
 * cannot carry an error event, so the client connection is closed before the body's end and
 * the client's HTTP library reports an incomplete answer instead of a short file.
 */
export async function relayBytes(reply: ClientReply, res: UpstreamResponse, first: Buffer, contentType: string,
  headers: Record<string, string>): Promise<ByteRelayOutcome> {
  let writable = true;
  let done = false;
  const flush = (c: Buffer, start: boolean): void => {
    writable = reply.batch(() => {
      if (start) reply.streamStart(200, contentType, headers, c);
      else reply.streamWrite(c);
      for (let n = res.take(); n !== null; n = res.take()) reply.streamWrite(n);
      if (res.finished) {
        reply.streamEnd();
        done = true;
      }
    });
  };
  if (reply.aborted) return cancelled(res);
  flush(first, true);
  while (!done) {
    if (!writable) await reply.drained();
    if (reply.aborted) return cancelled(res);
    let chunk: Buffer | null;
    try {
      chunk = await res.next();
    } catch (e) {
      if (reply.aborted) return cancelled(res);
      const failure = new RouteFailure('stream_interrupted', transportFailure(e).message);
      reply.streamAbort();
      return { aborted: false, failure };
    }
    if (reply.aborted) return cancelled(res);
    if (chunk === null) {
      reply.streamEnd();
      break;
    }
    flush(chunk, false);
  }
  return { aborted: false, failure: null };
}

function cancelled(res: UpstreamResponse): ByteRelayOutcome {
  res.cancel();
  return { aborted: true, failure: null };
}
