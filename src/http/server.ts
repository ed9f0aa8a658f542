import uWS from 'uWebSockets.js';
import { createServer } from 'node:net';
import fastJson from 'fast-json-stringify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { parseJsonBody } from '../domain/json-body.js';
import { errors } from '../errors/catalog.js';
import { toGatewayError } from '../errors/envelope.js';
import type { ErrorFormat } from '../errors/error-format.js';
import type { Logger } from '../lib/logger.js';
import type { RequestContext, RouteSpec } from '../domain/route-spec.js';
import { ROLE_RANK, type Session } from '../domain/session.js';
import { sessionToken } from '../lib/session-cookie.js';
import { framingRefusal, NO_FRAMING_CHECK, type FramingCheck } from './framing-guard.js';
import { UwsReply } from './uws-reply.js';
import { pick, wantsPage, type Dashboard } from './dashboard.js';

export interface ServerOptions {
  host: string;
  port: number;
  bodyLimitBytes: number;
  log: Logger;
  /** Seam for the limit of public routes, per key when the request carries a valid one, else per IP; throws a GatewayError (429). */
  publicGate?: (ip: string, authorization: string) => void;
  /** Resolves the gw_session cookie value to a session (session routes). */
  sessions?: (token: string) => Session | null;
  /** Origins allowed to make cookie-authenticated writes (the configured base URL). */
  allowedOrigins?: ReadonlySet<string>;
  /** The built dashboard, served at / and for browsers' page loads; null when not built. */
  dashboard?: Dashboard | null;
  /** false: requests with repeated Content-Length are not looked for (a proxy in front refuses them). */
  rejectRepeatedContentLength?: boolean;
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

const CROSS_SITE = errors.forbidden('Cross-site request refused: the Origin does not match this gateway');
const SHUTTING_DOWN = errors.serviceUnavailable('The gateway is shutting down; retry on a new connection');
const NO_BODY: ReadonlySet<string> = new Set(['get', 'del']);
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

  for (const route of routes) {
    register(app, route, opts, inflight, framing);
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
      if (refusal) new UwsReply(res, null, false, format).sendError(refusal, true);
      else new UwsReply(res, null, false, format).sendError(errors.methodNotAllowed(req.getMethod().toUpperCase(), req.getUrl()));
    });
  }
  app.any('/*', (res, req) => {
    const refusal = framing(res, req, req.getHeader(CONTENT_LENGTH));
    if (refusal) {
      new UwsReply(res).sendError(refusal, true);
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
    new UwsReply(res).sendError(errors.notFound(`No route for ${method.toUpperCase()} ${url}`));
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
  framing: FramingCheck): void {
  const paramNames = route.path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
  const isSession = route.auth === 'session';
  const isPublic = route.auth === 'public';
  const gated = isPublic && route.limitedByHandler !== true && opts.publicGate !== undefined;
  const checksOrigin = (isSession && route.method !== 'get') || route.sameOrigin === true;
  const headerNames = [...(route.headers ?? []), ...(isSession ? ['cookie'] : []), ...(checksOrigin ? ['origin', 'sec-fetch-site'] : []),
    ...(gated ? ['authorization'] : [])];
  const headerKeys = headerNames.map((h) => Buffer.from(h, 'latin1')); // bytes, as CONTENT_LENGTH
  const minRank = route.role ? ROLE_RANK[route.role] : 0;
  const readsBody = !NO_BODY.has(route.method);
  const check = route.kind === 'json' && route.body ? TypeCompiler.Compile(route.body) : null;
  const serialize = route.kind === 'json' && route.response ? fastJson(route.response as object) : JSON.stringify;
  const bearer = route.auth === 'api_key';
  const bodyLimit = route.bodyLimitBytes ?? opts.bodyLimitBytes;
  const errorFormat = route.errorFormat ?? null;
  const log = opts.log;

  const fail = (reply: UwsReply, e: unknown): void => {
    const { error, unexpected } = toGatewayError(e);
    if (unexpected) log.error('unhandled error', { path: route.path, err: String((e as Error)?.stack ?? e) });
    if (!reply.aborted) reply.sendError(error);
  };
  const json = async (ctx: RequestContext, reply: UwsReply): Promise<void> => {
    if (route.kind !== 'json') return;
    if (ctx.body !== null) ctx.body = jsonBody(ctx.body as Buffer, check);
    const out = await route.handle(ctx);
    if (reply.aborted) return;
    if (out.body === undefined) reply.send(out.status ?? 204, 'text/plain', '', out.headers);
    else reply.sendJson(out.status ?? 200, serialize(out.body), out.headers);
  };
  /**
   * Runs the handler; its failure becomes the route's error answer. A raw route's own promise is
   * used as it is: an async wrapper around it was a generator, two promises and a closure more a
   * request (bench:instructions).
   */
  const start = (ctx: RequestContext, reply: UwsReply): void => {
    let done: Promise<void>;
    try {
      done = route.kind === 'raw' ? route.handle(ctx, reply) : json(ctx, reply);
    } catch (e) {
      fail(reply, e);
      return;
    }
    done.then(undefined, (e: unknown) => fail(reply, e));
  };

  app[route.method](route.path, (res, req) => {
    if (inflight.draining) {
      if (readsBody) res.onData(() => {});
      new UwsReply(res, null, false, errorFormat).sendError(SHUTTING_DOWN, true);
      return;
    }
    const reply = new UwsReply(res, inflight, bearer, errorFormat);
    const declaredLength = req.getHeader(CONTENT_LENGTH);
    const refusal = framing(res, req, declaredLength);
    if (refusal) {
      if (readsBody) res.onData(() => {});
      reply.sendError(refusal, true);
      return;
    }
    // Refused before the body is read: uWS still needs a data handler for the bytes in flight.
    const refuse = (e: unknown): void => {
      if (readsBody) res.onData(() => {});
      fail(reply, e);
    };
    const ctx: RequestContext = { params: {}, query: req.getQuery() ?? '', headers: {}, body: null, ip: '', session: null };
    try {
      for (let i = 0; i < paramNames.length; i++) ctx.params[paramNames[i]] = decodeURIComponent(req.getParameter(i) ?? '');
    } catch {
      // A malformed %-escape (GET /auth/%E0%A4%A): a throw out of a uWS handler would end the process.
      refuse(errors.badRequest('The request path has a malformed %-escape'));
      return;
    }
    for (let i = 0; i < headerNames.length; i++) ctx.headers[headerNames[i]] = req.getHeader(headerKeys[i]);
    if (isPublic) ctx.ip = Buffer.from(res.getRemoteAddressAsText()).toString();
    if (gated) {
      try {
        opts.publicGate!(ctx.ip, ctx.headers.authorization);
      } catch (e) {
        refuse(e);
        return;
      }
    }
    if (isSession) {
      const refusal = authorize(ctx, opts, minRank, checksOrigin);
      if (refusal) {
        refuse(refusal);
        return;
      }
    } else if (checksOrigin && crossSite(ctx, opts)) {
      refuse(CROSS_SITE);
      return;
    }
    if (route.beforeBody) {
      try {
        route.beforeBody(ctx);
      } catch (e) {
        refuse(e);
        return;
      }
    }
    if (!readsBody) {
      start(ctx, reply);
      return;
    }
    // The route runs inside uWS's data callback as soon as the body is in: no promise and no
    // microtask between the last byte and the handler.
    reply.readBody(bodyLimit, Number(declaredLength || 0), (raw) => {
      ctx.body = raw;
      start(ctx, reply);
    });
  });
}

/** Whether a cookie write comes from another site. */
function crossSite(ctx: RequestContext, opts: ServerOptions): boolean {
  const origin = ctx.headers.origin;
  // Browsers send Origin on cross-site writes; Sec-Fetch-Site covers the few that send neither.
  return origin ? !opts.allowedOrigins?.has(origin) : ctx.headers['sec-fetch-site'] === 'cross-site';
}

/** Session, role and same-origin checks of a session route; returns the refusal, if any. */
function authorize(ctx: RequestContext, opts: ServerOptions, minRank: number, checksOrigin: boolean): Error | null {
  const token = sessionToken(ctx.headers.cookie);
  const session = token && opts.sessions ? opts.sessions(token) : null;
  if (!session) return errors.noSession();
  if (checksOrigin && crossSite(ctx, opts)) return CROSS_SITE;
  if (ROLE_RANK[session.role] < minRank) return errors.forbidden(`This needs the ${minRank === 3 ? 'owner' : 'admin'} role in the organisation`);
  ctx.session = session;
  return null;
}

/** The router's JSON body: required when the route declares a schema. */
function jsonBody(raw: Buffer, check: TypeCheck<TSchema> | null): unknown {
  if (raw.length === 0) {
    if (check) throw errors.badRequest('Request body is required');
    return null;
  }
  return parseJsonBody(raw, check);
}
