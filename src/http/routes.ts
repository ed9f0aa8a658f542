import { HealthBody } from '../control/health.js';
import { ModelList, type ModelListBody } from '../control/model-list.js';
import { ChatBodySchema, EmbeddingsBodySchema } from '../dataplane/inference-body.js';
import type { InferenceService } from '../dataplane/inference-service.js';
import { openApiDocument } from './openapi.js';
import type { RouteSpec } from '../domain/route-spec.js';

const GATEWAY_VERSION = '0.1.0';

export interface RouteDeps {
  inference: InferenceService;
  listModels: () => ModelListBody;
  health: () => unknown;
  /** Control-plane routes (/auth/*, /me/*), declared by their modules. */
  control: RouteSpec[];
}

const AUTH_HEADERS = ['authorization'] as const;

/** The route table: every HTTP route, declared once. */
export function buildRoutes(d: RouteDeps): RouteSpec[] {
  const routes: RouteSpec[] = [
    {
      kind: 'raw', method: 'post', path: '/v1/chat/completions', auth: 'api_key', headers: AUTH_HEADERS, body: ChatBodySchema,
      summary: 'Chat completion (OpenAI format), plain or SSE stream, routed with failover',
      handle: (ctx, reply) => d.inference.handle('chat', { authorization: ctx.headers.authorization, body: ctx.body as Buffer }, reply),
    },
    {
      kind: 'raw', method: 'post', path: '/v1/embeddings', auth: 'api_key', headers: AUTH_HEADERS, body: EmbeddingsBodySchema,
      summary: 'Embeddings (OpenAI format), routed with failover',
      handle: (ctx, reply) => d.inference.handle('embeddings', { authorization: ctx.headers.authorization, body: ctx.body as Buffer }, reply),
    },
    {
      kind: 'json', method: 'get', path: '/v1/models', auth: 'public', response: ModelList,
      summary: 'Model catalog with INR pricing, residency, languages, context length and per-route health',
      handle: () => ({ body: d.listModels() }),
    },
    {
      kind: 'json', method: 'get', path: '/health', auth: 'public', response: HealthBody,
      summary: 'Provider configuration and per-route circuit breaker state',
      handle: () => ({ body: d.health() }),
    },
    ...d.control,
  ];
  const openapi = openApiDocument(routes, GATEWAY_VERSION);
  routes.push({
    kind: 'json', method: 'get', path: '/openapi.json', auth: 'public',
    summary: 'This document: OpenAPI 3.1, generated from the route table',
    handle: () => ({ body: openapi }),
  });
  return routes;
}
