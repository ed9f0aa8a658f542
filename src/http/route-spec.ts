import type { TSchema } from '@sinclair/typebox';
import type { ClientReply } from '../dataplane/client-reply.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'del';

export interface RequestContext {
  params: Record<string, string>;
  query: string;
  /** Only the headers the route declared, lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON for json routes, raw bytes for raw routes, null without a body. */
  body: unknown;
  ip: string;
}

export interface JsonResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface RouteBase {
  method: Method;
  /** uWS pattern; `:name` segments become params. */
  path: string;
  summary: string;
  /** api_key: Bearer gw- key (checked by the handler); public: limited per client IP. */
  auth: 'api_key' | 'public';
  /** Request headers the handler reads (uWS headers vanish after the first await). */
  headers?: readonly string[];
  /** Request body schema: validated by the router for json routes; documentation for raw ones. */
  body?: TSchema;
  /** 200 response schema: compiled to a fast-json-stringify serializer for json routes. */
  response?: TSchema;
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
