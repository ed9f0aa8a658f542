import type { ClientReply } from '../domain/client-reply.js';
import type { Auth, RawRoute, RequestContext, RouteSpec } from '../domain/route-spec.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { mcpSpan } from './mcp-span.js';
import { inputContent, outputContent, type ContentFormat } from './content-capture.js';
import { TracedReply } from './traced-reply.js';
import type { Tracer } from './tracer.js';

interface Traced {
  operation: string;
  format: ContentFormat | null;
  /** The request makes no usage record, whose model the span would take: read the body's `model`. */
  modelInBody?: boolean;
  /** The span is named for the request's JSON-RPC method. */
  mcp?: boolean;
}

/**
 * The traced routes: their gen_ai.operation.name, and the format their content is read in (null:
 * no messages to capture). The GenAI conventions name no audio or token-counting operation, so
 * those routes use their endpoint's name, as the ledger's `endpoint` column does.
 */
const TRACED: ReadonlyMap<string, Traced> = new Map<string, Traced>([
  ['/v1/chat/completions', { operation: 'chat', format: 'chat' }],
  ['/v1/embeddings', { operation: 'embeddings', format: null }],
  ['/v1/messages', { operation: 'chat', format: 'messages' }],
  ['/v1/responses', { operation: 'chat', format: 'responses' }],
  ['/v1/audio/transcriptions', { operation: 'transcriptions', format: null }],
  ['/v1/audio/translations', { operation: 'translations', format: null }],
  ['/v1/audio/speech', { operation: 'speech', format: null }],
  // No upstream attempt, so no usage record names the model: read from the body, after the answer.
  ['/v1/messages/count_tokens', { operation: 'count_tokens', format: null, modelInBody: true }],
  // Not a GenAI operation itself: named for its JSON-RPC method (mcp-span.ts); the chat tool's
  // inference request is a span of its own under it (traced-inference.ts).
  ['/mcp', { operation: '', format: null, mcp: true }],
]);

export interface TracedRoutesOptions {
  /** tracing.captureContent: the prompt and the answer go on the request span. */
  captureContent: boolean;
}

/**
 * The route table with traces on: the inference routes' handlers wrapped to open the request's
 * span (continuing the client's traceparent) and close it with the status the client was given.
 * Installed at start only when tracing.otlpUrl is set; off, the table is buildRoutes' own, and
 * no handler reads traceparent or knows of traces (a read in the handlers cost the plain path
 * ~9k instructions a request even with traces off: docs/benchmarks.md, "the traces cliff").
 */
export function tracedRoutes(routes: readonly RouteSpec[], tracer: Tracer, o: TracedRoutesOptions): RouteSpec[] {
  return routes.map((r) => {
    const traced = r.kind === 'raw' && r.method === 'post' ? TRACED.get(r.path) : undefined;
    if (traced === undefined || r.kind !== 'raw') return r;
    const format = o.captureContent ? traced.format : null;
    const out: RawRoute = { ...r, headers: [...(r.headers ?? []), 'traceparent'], handle: tracedHandler(r.handle, tracer, traced, format) };
    return out;
  });
}

type RawHandler = RawRoute['handle'];

function tracedHandler(handle: RawHandler, tracer: Tracer, traced: Traced, format: ContentFormat | null): RawHandler {
  return (ctx: RequestContext<Auth, Buffer>, client: ClientReply): Promise<void> => {
    const trace = tracer.start(client.requestId, ctx.headers.traceparent, traced.operation);
    const reply = new TracedReply(client, format !== null);
    const ended = (status: number, code: string | null): void => {
      if (traced.modelInBody === true) trace.model = modelIn(ctx.body);
      if (traced.mcp === true) {
        const m = mcpSpan(ctx.body);
        trace.name = m.name;
        trace.extra = m.attributes;
      }
      if (format !== null) {
        // The answer has gone: content that cannot be read is left off the span, never an error the client would see.
        try {
          const content = inputContent(format, ctx.body);
          if (reply.kept !== null && reply.kept.length > 0 && reply.status === 200) {
            Object.assign(content, outputContent(format, reply.contentType, Buffer.concat(reply.kept)));
          }
          trace.content = content;
        } catch {
          trace.content = null;
        }
      }
      tracer.end(trace, status, code);
    };
    const failed = (e: unknown): never => {
      const g = isGatewayError(e) ? e : null;
      ended(g?.status ?? 500, g?.code ?? 'internal_error');
      throw e;
    };
    let done: Promise<unknown>;
    try {
      done = handle(ctx, reply);
    } catch (e) {
      return failed(e);
    }
    return done.then(() => {
      if (client.aborted) ended(499, 'client_aborted');
      else ended(reply.status === 0 ? 200 : reply.status, reply.code);
    }, failed);
  };
}

/** The request body's `model`, or '' when it has none (the body was the client's to get wrong). */
function modelIn(body: Buffer): string {
  try {
    const model = (JSON.parse(body.toString('utf8')) as { model?: unknown } | null)?.model;
    return typeof model === 'string' ? model : '';
  } catch {
    return '';
  }
}
