import type { TSchema } from '@sinclair/typebox';
import type { ErrorFormat } from '../errors/error-format.js';
import type { ClientReply } from './client-reply.js';
import type { Role, Session } from './session.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'del';

export interface RequestContext {
  params: Record<string, string>;
  query: string;
  /** Only the headers the route declared, lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON for json routes, raw bytes for raw routes, null without a body. */
  body: unknown;
  ip: string;
  /** The signed-in session on session routes, else null. */
  session: Session | null;
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
   * api_key: Bearer gw- key (checked by the handler); public: limited per client IP;
   * session: the gw_session cookie (401 no_session), at least `role` in the active org
   * (403 forbidden), and for writes a same-origin request (403 forbidden).
   */
  auth: 'api_key' | 'public' | 'session';
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
  /**
   * Runs on the request's headers before its body is read; a throw refuses the request at once.
   * Routes with large bodies check the key here, so a stranger cannot make the gateway hold an upload.
   */
  beforeBody?: (ctx: RequestContext) => void;
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

/** A handler that writes the reply itself (inference pass-through and streams); body is raw bytes. */
export interface RawRoute extends RouteBase {
  kind: 'raw';
  handle(ctx: RequestContext, reply: ClientReply): Promise<void>;
}

export type RouteSpec = JsonRoute | RawRoute;

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
