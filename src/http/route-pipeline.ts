import fastJson from 'fast-json-stringify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ClientReply } from '../domain/client-reply.js';
import type { KeyRecord } from '../domain/key-record.js';
import { parseJsonBody } from '../domain/json-body.js';
import type { RequestContext, RouteSpec } from '../domain/route-spec.js';
import { ROLE_RANK, type Session } from '../domain/session.js';
import { errors } from '../errors/catalog.js';
import { toGatewayError } from '../errors/envelope.js';
import type { ErrorFormat } from '../errors/error-format.js';
import { isGatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../lib/logger.js';
import type { Lease } from '../lib/request-slabs.js';
import { sessionToken } from '../lib/session-cookie.js';

/** What the router needs to authenticate and authorise a request, whatever server carries it. */
export interface RouterOptions {
  log: Logger;
  /**
   * Resolves a Bearer authorization to its key; throws the 401 (missing, malformed, unknown,
   * revoked, expired). A promise only when the key is not cached and the store is remote
   * (PostgreSQL): a cached key, and every key on SQLite, answers synchronously.
   */
  keys?: { authenticate(authorization: string): KeyRecord | Promise<KeyRecord> };
  /** Seam for the limit of public routes, per key when the request carries a valid one, else per IP; throws a GatewayError (429). */
  publicGate?: (ip: string, authorization: string) => void;
  /** Resolves the gw_session cookie value to a session (session routes); a promise on a remote store. */
  sessions?: (token: string) => Session | null | Promise<Session | null>;
  /** Origins allowed to make cookie-authenticated writes (the configured base URL). */
  allowedOrigins?: ReadonlySet<string>;
}

/** The reply the router writes: a ClientReply that also sends serialised JSON and closes on refusals. */
export interface RouterReply extends ClientReply {
  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string | readonly string[]>, close?: boolean): void;
  sendJson(status: number, json: string, headers?: Record<string, string | readonly string[]>): void;
  sendError(e: GatewayError, close?: boolean): void;
}

/**
 * One route with everything the router works out once: which headers to read, who may call it,
 * its body checker and serializer. The server binding reads the request into a context, calls
 * `admit` before the body is read, then `run` with the body; the in-process injector does the
 * same without a socket.
 */
export interface CompiledRoute {
  readonly route: RouteSpec;
  readonly paramNames: readonly string[];
  /** The request headers the route and its auth read, lower-case. */
  readonly headerNames: readonly string[];
  readonly readsBody: boolean;
  /** The body is read into a lent slab when large (RawRoute.lendsBody); run gives it back. */
  readonly lendsBody: boolean;
  readonly bodyLimit: number;
  readonly errorFormat: ErrorFormat | null;
  /** The route takes an API key: its 401s carry a Bearer challenge. */
  readonly bearer: boolean;
  /** Whether the route wants the client's address. */
  readonly readsIp: boolean;
  /**
   * Authentication and authorisation on the request's headers: fills ctx.key or ctx.session; the
   * refusal, or null. A promise of that when the answer needs the store (see RouterOptions).
   */
  admit(ctx: RequestContext): unknown;
  /**
   * Runs the handler with the body in ctx; its failure becomes the route's error answer. `lease`:
   * the hold on the slab the body was read into, given back once the handler's promise settles.
   */
  run(ctx: RequestContext, reply: RouterReply, lease?: Lease | null): void;
  /** Writes a refusal or failure in the route's shape, logging what was not a GatewayError. */
  fail(reply: RouterReply, e: unknown): void;
}

const NO_BODY: ReadonlySet<string> = new Set(['get', 'del']);
export const CROSS_SITE = errors.forbidden('Cross-site request refused: the Origin does not match this gateway');
const INFERENCE_KEY = errors.forbidden('This key may only call the inference API: it was minted through MCP for one task');

export function compileRoute(route: RouteSpec, opts: RouterOptions, defaultBodyLimit: number): CompiledRoute {
  const paramNames = route.path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
  const isSession = route.auth === 'session';
  const isPublic = route.auth === 'public';
  const bearer = route.auth === 'api_key';
  const gated = isPublic && route.limitedByHandler !== true && opts.publicGate !== undefined;
  const checksOrigin = (isSession && route.method !== 'get') || route.sameOrigin === true;
  const keyHeader = bearer ? route.apiKeyHeader ?? null : null;
  const missingEither = keyHeader === null ? null
    : errors.invalidApiKey(`Missing API key: send ${keyHeader}: <key> or Authorization: Bearer <key>`);
  const headerNames = [...new Set([...(route.headers ?? []), ...(isSession ? ['cookie'] : []),
    ...(checksOrigin ? ['origin', 'sec-fetch-site'] : []), ...(gated || bearer ? ['authorization'] : []), ...(keyHeader ? [keyHeader] : [])])];
  const minRank = route.role ? ROLE_RANK[route.role] : 0;
  const check = route.kind === 'json' && route.body ? TypeCompiler.Compile(route.body) : null;
  const serialize = route.kind === 'json' && route.response ? fastJson(route.response as object) : JSON.stringify;
  const log = opts.log;
  const keys = opts.keys;
  if (bearer && !keys) throw new Error(`route ${route.path} takes an API key, and the router has no key authenticator`);

  const fail = (reply: RouterReply, e: unknown): void => {
    const { error, unexpected } = toGatewayError(e);
    if (unexpected) log.error('unhandled error', { path: route.path, err: String((e as Error)?.stack ?? e) });
    else if (error.status === 503 && !isGatewayError(e)) log.warn('the database did not answer', { path: route.path, err: String(e) });
    if (!reply.aborted) reply.sendError(error);
  };
  const json = async (ctx: RequestContext, reply: RouterReply): Promise<void> => {
    if (route.kind !== 'json') return;
    if (ctx.body !== null) ctx.body = jsonBody(ctx.body as Buffer, check);
    const out = await route.handle(ctx);
    if (reply.aborted) return;
    if (out.body === undefined) reply.send(out.status ?? 204, 'text/plain', '', out.headers);
    else reply.sendJson(out.status ?? 200, serialize(out.body), out.headers);
  };

  const withKey = (ctx: RequestContext, key: KeyRecord): unknown => {
    if (route.scope === 'full' && key.scope !== 'full') return INFERENCE_KEY;
    (ctx as RequestContext<'api_key'>).key = key;
    return null;
  };

  return {
    route, paramNames, headerNames, bearer, readsIp: isPublic,
    readsBody: !NO_BODY.has(route.method),
    lendsBody: route.kind === 'raw' && route.lendsBody === true,
    bodyLimit: route.bodyLimitBytes ?? defaultBodyLimit,
    errorFormat: route.errorFormat ?? null,
    fail,
    admit(ctx) {
      try {
        if (bearer) {
          const h = ctx.headers;
          if (missingEither !== null && !h.authorization && !h[keyHeader!]) return missingEither;
          // Anthropic's clients send the key bare as x-api-key; Bearer wins when both are there.
          const key = keys!.authenticate(keyHeader !== null && !h.authorization && h[keyHeader] ? `Bearer ${h[keyHeader].trim()}` : h.authorization);
          if (key instanceof Promise) return key.then((k) => withKey(ctx, k), (e: unknown) => e);
          return withKey(ctx, key);
        }
        if (gated) opts.publicGate!(ctx.ip, ctx.headers.authorization);
        if (isSession) return authorize(ctx, opts, minRank, checksOrigin);
        if (checksOrigin && crossSite(ctx, opts)) return CROSS_SITE;
        return null;
      } catch (e) {
        return e;
      }
    },
    /**
     * A raw route's own promise is used as it is: an async wrapper around it was a generator, two
     * promises and a closure more a request (bench:instructions).
     */
    run(ctx, reply, lease = null) {
      let done: Promise<unknown>;
      try {
        done = route.kind === 'raw' ? route.handle(ctx as RequestContext<'api_key', Buffer>, reply) : json(ctx, reply);
      } catch (e) {
        lease?.release();
        fail(reply, e);
        return;
      }
      if (lease === null) done.then(undefined, (e: unknown) => fail(reply, e));
      else {
        done.then(lease.released, (e: unknown) => {
          lease.release();
          fail(reply, e);
        });
      }
    },
  };
}

/** A context for a request, before the router fills in who is calling. */
export function newContext(query: string): RequestContext {
  return { params: {}, query, headers: {}, body: null, ip: '', session: null, key: null };
}

/** Whether a cookie write comes from another site. */
function crossSite(ctx: RequestContext, opts: RouterOptions): boolean {
  const origin = ctx.headers.origin;
  // Browsers send Origin on cross-site writes; Sec-Fetch-Site covers the few that send neither.
  return origin ? !opts.allowedOrigins?.has(origin) : ctx.headers['sec-fetch-site'] === 'cross-site';
}

/** Session, role and same-origin checks of a session route; returns the refusal, if any (a promise of it when the session store is remote). */
function authorize(ctx: RequestContext, opts: RouterOptions, minRank: number, checksOrigin: boolean): unknown {
  const token = sessionToken(ctx.headers.cookie);
  const session = token && opts.sessions ? opts.sessions(token) : null;
  if (session instanceof Promise) return session.then((s) => authorizeSession(ctx, opts, s, minRank, checksOrigin), (e: unknown) => e);
  return authorizeSession(ctx, opts, session, minRank, checksOrigin);
}

function authorizeSession(ctx: RequestContext, opts: RouterOptions, session: Session | null, minRank: number, checksOrigin: boolean): Error | null {
  if (!session) return errors.noSession();
  if (checksOrigin && crossSite(ctx, opts)) return CROSS_SITE;
  if (ROLE_RANK[session.role] < minRank) return errors.forbidden(`This needs the ${minRank === 3 ? 'owner' : 'admin'} role in the organisation`);
  (ctx as RequestContext<'session'>).session = session;
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
