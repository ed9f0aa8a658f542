import type { ClientReply } from '../domain/client-reply.js';
import type { InferenceService } from '../dataplane/inference-service.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { TracedReply } from './traced-reply.js';
import type { Tracer } from './tracer.js';

type Handle = InferenceService['handle'];

/**
 * The inference service as the MCP chat tool sees it with traces on (installed only then): the
 * tool's inference request gets a request span of its own, a child of its /mcp request's span,
 * and its attempts get theirs from the traced upstream client and usage sink as any request's do
 * (found by the tool reply's request id). The HTTP routes reach the service through
 * traced-routes.ts instead; this wrapper is the MCP server's only.
 */
export function tracedInference(inference: Pick<InferenceService, 'handle'>, tracer: Tracer): Pick<InferenceService, 'handle'> {
  return {
    handle(endpoint, req, client: ClientReply, inbound): ReturnType<Handle> {
      // The tool's MemoryReply names the /mcp request it serves; another caller's reply does not.
      const via = (client as { readonly via?: unknown }).via;
      const trace = tracer.startWithin(client.requestId, typeof via === 'string' ? via : '', endpoint);
      const reply = new TracedReply(client, false);
      return inference.handle(endpoint, req, reply, inbound).then((cost) => {
        tracer.end(trace, reply.status === 0 ? 200 : reply.status, reply.code);
        return cost;
      }, (e: unknown) => {
        const g = isGatewayError(e) ? e : null;
        tracer.end(trace, g?.status ?? 500, g?.code ?? 'internal_error');
        throw e;
      });
    },
  };
}
