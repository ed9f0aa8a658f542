import { envelopeJson, sseErrorEvent } from '../errors/envelope.js';
import { errors } from '../errors/catalog.js';
import type { ErrorFormat } from '../errors/error-format.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { Method, RequestContext, RouteSpec } from '../domain/route-spec.js';
import { nextRequestId } from '../lib/request-id.js';
import { compileRoute, newContext, type CompiledRoute, type RouterOptions, type RouterReply } from './route-pipeline.js';

export interface InjectRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, as on the wire: /me/keys?limit=5 */
  url: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON. */
  body?: string | Buffer | object;
  /** The client's address, for public routes' limits (default 127.0.0.1). */
  ip?: string;
}

export interface InjectResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
  json<T = any>(): T;
}

/**
 * Calls routes through the router without a socket, as fastify's `inject` and hono's
 * `app.request` do: the same auth, role and origin checks, body limit, schema check and
 * serialisation as the server, on a reply kept in memory. For unit tests of services and
 * routes; the e2e suite still goes through uWS on a real port.
 */
export function createInjector(routes: readonly RouteSpec[], opts: RouterOptions & { bodyLimitBytes?: number }):
  (req: InjectRequest) => Promise<InjectResponse> {
  const table = routes.map((r) => ({ compiled: compileRoute(r, opts, opts.bodyLimitBytes ?? 1024 * 1024), match: matcher(r.path) }));
  return async (req) => {
    const method = (req.method === 'DELETE' ? 'del' : req.method.toLowerCase()) as Method;
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    let onPath: CompiledRoute | null = null;
    for (const { compiled, match } of table) {
      const params = match(path);
      if (params === null) continue;
      onPath ??= compiled;
      if (compiled.route.method !== method) continue;
      return run(compiled, params, req, q < 0 ? '' : req.url.slice(q + 1));
    }
    const reply = new MemoryRouterReply(onPath?.errorFormat ?? null, false);
    reply.sendError(onPath ? errors.methodNotAllowed(req.method, path) : errors.notFound(`No route for ${req.method} ${path}`));
    return reply.done;
  };
}

function run(r: CompiledRoute, params: string[] | null, req: InjectRequest, query: string): Promise<InjectResponse> {
  const reply = new MemoryRouterReply(r.errorFormat, r.bearer);
  const ctx = newContext(query);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
  let refused: unknown = null;
  try {
    for (let i = 0; i < r.paramNames.length; i++) ctx.params[r.paramNames[i]] = decodeURIComponent(params![i]);
  } catch {
    refused = errors.badRequest('The request path has a malformed %-escape');
  }
  // As uWS: a header the route did not declare is not seen, an absent one is ''.
  for (const name of r.headerNames) ctx.headers[name] = headers[name] ?? '';
  if (r.readsIp) ctx.ip = req.ip ?? '127.0.0.1';
  if (refused === null) refused = r.admit(ctx);
  if (refused instanceof Promise) return refused.then((v) => admitted(r, reply, ctx, req, v));
  return admitted(r, reply, ctx, req, refused);
}

function admitted(r: CompiledRoute, reply: MemoryRouterReply, ctx: RequestContext, req: InjectRequest, refused: unknown): Promise<InjectResponse> {
  if (refused !== null) {
    r.fail(reply, refused);
    return reply.done;
  }
  if (r.readsBody) {
    const b = req.body;
    const raw = b === undefined ? Buffer.alloc(0) : Buffer.isBuffer(b) ? b : Buffer.from(typeof b === 'string' ? b : JSON.stringify(b));
    if (raw.length > r.bodyLimit) {
      reply.sendError(errors.payloadTooLarge(r.bodyLimit));
      return reply.done;
    }
    ctx.body = raw;
  }
  r.run(ctx, reply);
  return reply.done;
}

/** A uWS pattern (`/me/keys/:id`) as a function from a path to its params' raw segments, or null. */
function matcher(pattern: string): (path: string) => string[] | null {
  const parts = pattern.split('/');
  return (path) => {
    const segs = path.split('/');
    if (segs.length !== parts.length) return null;
    const params: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      if (parts[i].startsWith(':')) {
        if (segs[i] === '') return null;
        params.push(segs[i]);
      } else if (parts[i] !== segs[i]) return null;
    }
    return params;
  };
}

/** The router's reply kept in memory; `done` resolves when the answer is whole. */
class MemoryRouterReply implements RouterReply {
  readonly aborted = false;
  readonly requestId = nextRequestId();
  readonly done: Promise<InjectResponse>;
  #resolve!: (r: InjectResponse) => void;
  #status = 0;
  #headers: Record<string, string | string[]> = {};
  #chunks: string[] = [];
  #started = false;

  constructor(readonly errorFormat: ErrorFormat | null, readonly bearer: boolean) {
    this.done = new Promise((resolve) => { this.#resolve = resolve; });
  }

  onAbort(): void {
    // Nobody goes away in memory.
  }

  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string | readonly string[]>): void {
    this.#head(status, contentType, headers);
    if (status === 401 && this.bearer) this.#headers['www-authenticate'] = 'Bearer realm="gw"';
    this.#end(typeof body === 'string' ? body : body.toString('utf8'));
  }

  sendJson(status: number, json: string, headers?: Record<string, string | readonly string[]>): void {
    this.send(status, 'application/json', json, headers);
  }

  sendError(e: GatewayError): void {
    const f = this.errorFormat;
    if (this.#started) {
      this.streamEnd(f === null ? sseErrorEvent(e) : f.event(e, this.requestId));
      return;
    }
    this.send(e.status, 'application/json', f === null ? envelopeJson(e) : f.body(e, this.requestId), e.headers ?? undefined);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.#head(status, contentType, headers);
    this.#started = true;
    this.#chunks.push(first.toString('utf8'));
    return true;
  }

  streamWrite(chunk: Buffer | string): boolean {
    this.#chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    return true;
  }

  drained(): Promise<void> {
    return Promise.resolve();
  }

  streamEnd(last?: Buffer | string): void {
    this.#end(last === undefined ? '' : typeof last === 'string' ? last : last.toString('utf8'));
  }

  streamAbort(): void {
    this.#end('');
  }

  batch(writes: () => void): boolean {
    writes();
    return true;
  }

  #head(status: number, contentType: string, headers?: Record<string, string | readonly string[]>): void {
    this.#status = status;
    this.#headers = { 'content-type': contentType, 'x-request-id': this.requestId };
    for (const [k, v] of Object.entries(headers ?? {})) this.#headers[k.toLowerCase()] = typeof v === 'string' ? v : [...v];
  }

  #end(last: string): void {
    this.#chunks.push(last);
    const body = this.#chunks.join('');
    this.#resolve({ status: this.#status, headers: this.#headers, body, json: () => JSON.parse(body) });
  }
}
