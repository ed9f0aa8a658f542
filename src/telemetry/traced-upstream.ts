import type { Route } from '../catalog/catalog.js';
import type { Config } from '../config/schema.js';
import { type AbortSource, type RequestPayload, UpstreamClient } from '../dataplane/upstream-client.js';
import type { Endpoint, UpstreamCall, UpstreamResponse } from '../providers/types.js';
import type { Tracer } from './tracer.js';

/**
 * The upstream client with traces on (installed in place of UpstreamClient only then): each
 * attempt of a traced request opens its span and sends the provider `traceparent` naming it.
 *
 * The header goes as the call's own (UpstreamCall.headers), and a body of bytes as one piece: the
 * client writes such a head per request from its cached text, and its fast path for a body of bytes
 * with the cached head (the plain path, traces off) is left as it is. A copy of the route's header
 * set with the header in it, the first way tried, had the client build and check a whole head per
 * attempt (bench:instructions, gateway-traced). Off, this class is never constructed.
 */
export class TracedUpstreamClient extends UpstreamClient {
  readonly #tracer: Tracer;

  constructor(cfg: Config['upstream'], tracer: Tracer) {
    super(cfg);
    this.#tracer = tracer;
  }

  override send(endpoint: Endpoint, route: Route, call: UpstreamCall, client: RequestPayload,
    headers: Record<string, string>, abort: AbortSource, secret: string | null = null): Promise<UpstreamResponse> {
    // The inference path's abort source is the client's reply, which carries the request id; a
    // monitor's probe is not a request and carries none.
    const requestId = (abort as { readonly requestId?: unknown }).requestId;
    const parent = typeof requestId === 'string' ? this.#tracer.attemptSent(requestId, route.upstreamModel) : null;
    if (parent === null) return super.send(endpoint, route, call, client, headers, abort, secret);
    const body = call.body;
    const traced: UpstreamCall = { ...call, body: Buffer.isBuffer(body) ? [body] : body,
      headers: call.headers === undefined ? { traceparent: parent } : { ...call.headers, traceparent: parent } };
    return super.send(endpoint, route, traced, client, headers, abort, secret);
  }
}
