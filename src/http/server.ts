import uWS from 'uWebSockets.js';
import { createServer } from 'node:net';
import { errors } from '../errors/catalog.js';
import type { ErrorFormat } from '../errors/error-format.js';
import type { RequestContext, RouteSpec } from '../domain/route-spec.js';
import type { AnswerMeter, AnswerMeters } from '../domain/request-meter.js';
import { compileRoute, newContext, type CompiledRoute, type RouterOptions } from './route-pipeline.js';
import { framingRefusal, NO_FRAMING_CHECK, type FramingCheck } from './framing-guard.js';
import { UwsReply } from './uws-reply.js';
import type { Lease } from '../lib/request-slabs.js';
import { pick, wantsPage, type Dashboard } from './dashboard.js';

export interface ServerOptions extends RouterOptions {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /** The built dashboard, served at / and for browsers' page loads; null when not built. */
  dashboard?: Dashboard | null;
  /** false: requests with repeated Content-Length are not looked for (a proxy in front refuses them). */
  rejectRepeatedContentLength?: boolean;
  /** Metrics of every answer by route; null or absent: nothing is measured. */
  meters?: AnswerMeters | null;
}

export interface RunningServer {
  port: number;
  /** Requests whose response has not ended yet. */
  readonly inflight: { count: number; draining: boolean };
  /**
   * Stops accepting connections and, on connections already open (keep-alive), answers new
   * requests 503 with Connection: close, so in-flight work can drain to zero.
   */
  stopListening(): void;
}

const SHUTTING_DOWN = errors.serviceUnavailable('The gateway is shutting down; retry on a new connection');
// As bytes, which uWS reads in place instead of converting a string to UTF-8 per call.
const CONTENT_LENGTH = Buffer.from('content-length', 'latin1');
const ACCEPT = Buffer.from('accept', 'latin1');
const ACCEPT_ENCODING = Buffer.from('accept-encoding', 'latin1');
const IF_NONE_MATCH = Buffer.from('if-none-match', 'latin1');
/**
 * The one uWS app: every route of the table registered once with its precomputed pieces
 * (param names, body checker, serializer), a 405 for known paths with another method, and a
 * 404 envelope for the rest.
 */
export function startServer(routes: readonly RouteSpec[], opts: ServerOptions): Promise<RunningServer> {
  const app = uWS.App();
  const inflight = { count: 0, draining: false };
  /** Each path's error format (null: the spec's envelope), for its 405s. */
  const paths = new Map<string, ErrorFormat | null>();
  const framing = opts.rejectRepeatedContentLength === false ? NO_FRAMING_CHECK : framingRefusal;

  const unmatched = opts.meters?.forRoute('other') ?? null;
  for (const route of routes) {
    register(app, route, opts, inflight, framing, opts.meters?.forRoute(route.path) ?? null);
    if (!paths.has(route.path) || route.errorFormat) paths.set(route.path, route.errorFormat ?? null);
  }
  const site = opts.dashboard ?? null;
  if (site) {
    const serve = (file: Parameters<typeof pick>[0]) => (res: uWS.HttpResponse, req: uWS.HttpRequest): void => {
      const out = pick(file, req.getHeader(ACCEPT_ENCODING), req.getHeader(IF_NONE_MATCH));
      new UwsReply(res, inflight).send(out.status, file.type, out.body, out.headers);
    };
    app.get('/', serve(site.page));
    for (const [path, file] of site.files) app.get(path, serve(file));
  }
  // uWS prefers a method-specific handler over `any` on the same pattern, so this only sees the rest.
  for (const [path, format] of paths) {
    app.any(path, (res, req) => {
      const refusal = framing(res, req, req.getHeader(CONTENT_LENGTH));
      if (refusal) new UwsReply(res, null, false, format, unmatched).sendError(refusal, true);
      else new UwsReply(res, null, false, format, unmatched).sendError(errors.methodNotAllowed(req.getMethod().toUpperCase(), req.getUrl()));
    });
  }
  app.any('/*', (res, req) => {
    const refusal = framing(res, req, req.getHeader(CONTENT_LENGTH));
    if (refusal) {
      new UwsReply(res, null, false, null, unmatched).sendError(refusal, true);
      return;
    }
    const url = req.getUrl();
    const method = req.getMethod();
    // The dashboard routes itself in the browser: a reload of /keys gets the same page.
    if (site && wantsPage(method, url, req.getHeader(ACCEPT))) {
      const out = pick(site.page, req.getHeader(ACCEPT_ENCODING), req.getHeader(IF_NONE_MATCH));
      new UwsReply(res, inflight).send(out.status, site.page.type, out.body, out.headers);
      return;
    }
    new UwsReply(res, null, false, null, unmatched).sendError(errors.notFound(`No route for ${method.toUpperCase()} ${url}`));
  });

  return new Promise((resolve, reject) => {
    // uSockets sets SO_REUSEPORT by default: a second gateway on the same port would start
    // quietly and the kernel would split new connections between the two. Exclusive refuses it.
    listenExclusive(app, opts.host, opts.port, (token) => {
      if (!token) {
        // uWS says only "false"; the same bind through node:net tells in use from not ours.
        bindError(opts.host, opts.port).then((code) => reject(new ListenError(opts.host, opts.port, code)));
        return;
      }
      resolve({
        port: uWS.us_socket_local_port(token),
        inflight,
        stopListening: () => {
          inflight.draining = true;
          uWS.us_listen_socket_close(token);
        },
      });
    });
  });
}

/** The server could not listen; code is the bind's errno name (EADDRINUSE: another program has the port). */
export class ListenError extends Error {
  constructor(readonly host: string, readonly port: number, readonly code: string | null) {
    super(`cannot listen on ${host}:${port}${code ? ` (${code})` : ''}`);
    this.name = 'ListenError';
  }
}

function bindError(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? null));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

type ListenCallback = (token: uWS.us_listen_socket | false) => void;

// uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT; the JavaScript fallback does not export the name (and
// always listens exclusively).
const LISTEN_EXCLUSIVE_PORT = 1;

// Both builds take (host, port, options, cb); the typings list options only with a port.
function listenExclusive(app: uWS.TemplatedApp, host: string, port: number, cb: ListenCallback): void {
  (app.listen as unknown as (h: string, p: number, o: number, c: ListenCallback) => void).call(app, host, port, LISTEN_EXCLUSIVE_PORT, cb);
}

function register(app: uWS.TemplatedApp, route: RouteSpec, opts: ServerOptions, inflight: { count: number; draining: boolean },
  framing: FramingCheck, meter: AnswerMeter | null): void {
  const r = compileRoute(route, opts, opts.bodyLimitBytes);
  const { paramNames, headerNames, readsBody, lendsBody, bodyLimit, errorFormat, bearer, readsIp } = r;
  const headerKeys = headerNames.map((h) => Buffer.from(h, 'latin1')); // bytes, as CONTENT_LENGTH

  app[route.method](route.path, (res, req) => {
    if (inflight.draining) {
      if (readsBody) res.onData(() => {});
      new UwsReply(res, null, false, errorFormat, meter).sendError(SHUTTING_DOWN, true);
      return;
    }
    const reply = new UwsReply(res, inflight, bearer, errorFormat, meter);
    const declaredLength = req.getHeader(CONTENT_LENGTH);
    const refusal = framing(res, req, declaredLength);
    if (refusal) {
      if (readsBody) res.onData(() => {});
      reply.sendError(refusal, true);
      return;
    }
    const ctx = newContext(req.getQuery() ?? '');
    let refused: unknown = null;
    try {
      for (let i = 0; i < paramNames.length; i++) ctx.params[paramNames[i]] = decodeURIComponent(req.getParameter(i) ?? '');
    } catch {
      // A malformed %-escape (GET /auth/%E0%A4%A): a throw out of a uWS handler would end the process.
      refused = errors.badRequest('The request path has a malformed %-escape');
    }
    if (refused === null) {
      for (let i = 0; i < headerNames.length; i++) ctx.headers[headerNames[i]] = req.getHeader(headerKeys[i]);
      if (readsIp) ctx.ip = Buffer.from(res.getRemoteAddressAsText()).toString();
      // Before the body is read: a stranger cannot make the gateway hold an upload.
      refused = r.admit(ctx);
    }
    if (refused instanceof Promise) {
      admitLater(r, ctx, reply, refused, readsBody ? bodyLimit : -1, Number(declaredLength || 0));
      return;
    }
    if (refused !== null) {
      // uWS still needs a data handler for the bytes in flight.
      if (readsBody) res.onData(() => {});
      r.fail(reply, refused);
      return;
    }
    if (!readsBody) {
      r.run(ctx, reply);
      return;
    }
    // The route runs inside uWS's data callback as soon as the body is in: no promise and no
    // microtask between the last byte and the handler.
    reply.readBody(bodyLimit, Number(declaredLength || 0), (raw, lease) => {
      ctx.body = raw;
      r.run(ctx, reply, lease);
    }, lendsBody);
  });
}

/**
 * Admission that waits for the store (a key or session not cached, on PostgreSQL): the body is
 * read meanwhile, since uWS wants its data handler now, and the route runs once both are in.
 * A refusal answers at once; the rest of the body is read and dropped. bodyLimit -1: no body.
 */
function admitLater(r: CompiledRoute, ctx: RequestContext, reply: UwsReply, admitted: Promise<unknown>, bodyLimit: number, declaredLength: number): void {
  let verdict: unknown;
  let decided = false;
  let body: Buffer | null = bodyLimit < 0 ? Buffer.alloc(0) : null;
  let lease: Lease | null = null;
  const go = (): void => {
    if (!decided || body === null) return;
    if (verdict !== null) {
      // Refused: the body read meanwhile is not used.
      lease?.release();
      lease = null;
      return;
    }
    if (bodyLimit >= 0) ctx.body = body;
    r.run(ctx, reply, lease);
  };
  if (bodyLimit >= 0) reply.readBody(bodyLimit, declaredLength, (raw, lent) => { body = raw; lease = lent; go(); }, r.lendsBody);
  void admitted.then((v) => {
    decided = true;
    verdict = v;
    if (v !== null) r.fail(reply, v);
    go();
  });
}
