import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorFormat } from '../errors/error-format.js';
import type { ClientReply } from './client-reply.js';
import type { KeyRecord } from './key-record.js';
import type { Role, Session } from './session.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'del';

/**
 * Who may call a route, checked by the router before the body is read: public (limited per
 * client IP or key), api_key (a gw- key as Bearer, or x-api-key where the route accepts it),
 * session (the gw_session cookie, the role, same-origin writes).
 */
export type Auth = 'public' | 'api_key' | 'session';

/**
 * What a handler is given. The router fills `key` on api_key routes and `session` on session
 * routes, so the types say which is there; `body` is typed from the route's schema.
 */
export interface RequestContext<A extends Auth = Auth, B = unknown> {
  params: Record<string, string>;
  query: string;
  /** Only the headers the route declared, lower-case names. */
  headers: Record<string, string>;
  /** Parsed and checked JSON for json routes, raw bytes for raw routes, null without a body. */
  body: B;
  ip: string;
  /** The signed-in session and its active org and role, on session routes. */
  session: A extends 'session' ? Session : null;
  /** The authenticated API key, on api_key routes. */
  key: A extends 'api_key' ? KeyRecord : null;
}

export interface JsonResult {
  status?: number;
  /** Serialised with the route's response schema; undefined sends an empty body (redirects). */
  body?: unknown;
  /** A list value sends the header once per item (several Set-Cookie). */
  headers?: Record<string, string | readonly string[]>;
}

interface RouteBase {
  method: Method;
  /** uWS pattern; `:name` segments become params. */
  path: string;
  summary: string;
  /**
   * api_key: a gw- key as Bearer (401 on a missing, unknown, revoked or expired key);
   * public: limited per client IP; session: the gw_session cookie (401 no_session), at least
   * `role` in the active org (403 forbidden), and for writes a same-origin request (403 forbidden).
   */
  auth: Auth;
  /** api_key routes: a key of this scope only (403 forbidden for an MCP-minted inference key). */
  scope?: 'full';
  /** api_key routes: the key may come as x-api-key too (Anthropic's clients send it so). */
  apiKeyHeader?: 'x-api-key';
  /**
   * A public route whose handler applies the public limit itself, once it knows whether the
   * request is genuine: the payment webhook limits only unsigned or badly signed deliveries, so a
   * burst of real ones (a provider's retries, many payments at once) is never refused with 429.
   */
  limitedByHandler?: true;
  role?: Role;
  /**
   * A cookie write outside a session route (sign-out): refused cross-site (403 forbidden) as
   * session writes are. Session routes other than GET have this check already.
   */
  sameOrigin?: boolean;
  /** Request headers the handler reads (uWS headers vanish after the first await). */
  headers?: readonly string[];
  /** Request body schema: validated by the router for json routes; documentation for raw ones. */
  body?: TSchema;
  /** The body's media type in /openapi.json when it is not JSON (multipart uploads, a checkout's form post). */
  bodyType?: 'multipart/form-data' | 'application/x-www-form-urlencoded';
  /** Replaces the server's bodyLimitBytes for this route (audio uploads). */
  bodyLimitBytes?: number;
  /** Answers with a 302 redirect (sign-in flows), or 303 after a form post, documented as such in /openapi.json. */
  redirects?: true | 303;
  /** 200 response schema: compiled to a fast-json-stringify serializer for json routes. */
  response?: TSchema;
  /**
   * The shape of every error on this route, the router's own (401, 405, 413, bad framing,
   * shutdown) included, when its clients expect another than the spec's envelope
   * (/v1/messages: Anthropic's). Statuses and codes stay the spec's.
   */
  errorFormat?: ErrorFormat;
}

/** A handler that returns a value; the router validates, serialises and writes it. */
export interface JsonRoute extends RouteBase {
  kind: 'json';
  handle(ctx: RequestContext): JsonResult | Promise<JsonResult>;
}

/**
 * A handler that writes the reply itself (inference pass-through and streams); body is raw bytes.
 * What its promise resolves to is not the router's (an inference handler's is the cost it billed).
 */
export interface RawRoute extends RouteBase {
  kind: 'raw';
  /**
   * A large body is read into a lent slab (lib/request-slabs.ts), given back once the handler's
   * promise has settled: nothing the handler starts may keep the bytes past that but the upstream
   * layer, which holds the slab itself while it writes them (inference routes).
   */
  lendsBody?: true;
  handle(ctx: RequestContext<Auth, Buffer>, reply: ClientReply): Promise<unknown>;
}

export type RouteSpec = JsonRoute | RawRoute;

/** The body a json route's handler sees: its schema's type, or null when it declares none. */
type JsonBody<S> = S extends TSchema ? Static<S> : null;

/** A json route as written: `auth` and `body` give the handler's context its types. */
export interface JsonRouteDef<A extends Auth, S extends TSchema | undefined> extends Omit<RouteBase, 'auth' | 'body'> {
  kind: 'json';
  auth: A;
  body?: S;
  handle(ctx: RequestContext<A, JsonBody<S>>): JsonResult | Promise<JsonResult>;
}

/** A raw route as written. */
export interface RawRouteDef<A extends Auth> extends Omit<RouteBase, 'auth'> {
  kind: 'raw';
  auth: A;
  lendsBody?: true;
  handle(ctx: RequestContext<A, Buffer>, reply: ClientReply): Promise<unknown>;
}

/**
 * Declares a route. The definition's `auth` and body schema type its handler's context (no casts,
 * no `session!`); the route table holds the erased form, which the router fills to match.
 */
export function route<A extends Auth, S extends TSchema | undefined = undefined>(def: JsonRouteDef<A, S>): RouteSpec;
export function route<A extends Auth>(def: RawRouteDef<A>): RouteSpec;
export function route(def: JsonRouteDef<Auth, TSchema | undefined> | RawRouteDef<Auth>): RouteSpec {
  return def as RouteSpec;
}

/**
 * A JSON route on one model id, declared in both the ways clients write one: `prefix/:id` for an
 * id without a slash or escaped (sandbox%2Fecho), and `prefix/:owner/:name` for an id with its
 * slash as the OpenAI SDKs send it (GET /v1/models/sandbox/echo). `suffix` follows the id.
 */
export function modelIdRoutes(route: Omit<JsonRoute, 'path' | 'handle'> & { prefix: string; suffix?: string },
  handle: (id: string) => JsonResult | Promise<JsonResult>): JsonRoute[] {
  const { prefix, suffix = '', ...base } = route;
  return [
    { ...base, path: `${prefix}/:id${suffix}`, handle: (ctx) => handle(ctx.params.id) },
    {
      ...base, path: `${prefix}/:owner/:name${suffix}`, summary: 'The same, for a model id with a slash in it (sandbox/echo)',
      handle: (ctx) => handle(`${ctx.params.owner}/${ctx.params.name}`),
    },
  ];
}
