import { HealthBody } from '../control/health.js';
import { ModelList, type ModelListBody } from '../control/model-list.js';
import { ProviderList, type ProviderListBody } from '../control/provider-list.js';
import { ChatBodySchema, EmbeddingsBodySchema } from '../dataplane/inference-body.js';
import type { InferenceService } from '../dataplane/inference-service.js';
import { llmsTxt } from './llms-txt.js';
import { openApiDocument } from './openapi.js';
import type { RouteSpec } from '../domain/route-spec.js';

const GATEWAY_VERSION = '0.1.0';

export interface RouteDeps {
  inference: InferenceService;
  listModels: () => ModelListBody;
  listProviders: () => ProviderListBody;
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
      kind: 'json', method: 'get', path: '/v1/providers', auth: 'public', response: ProviderList,
      summary: 'Provider registry: configured status, residency, BYOK support, platform-key fallback, data handling and health',
      handle: () => ({ body: d.listProviders() }),
    },
    {
      kind: 'json', method: 'get', path: '/health', auth: 'public', response: HealthBody,
      summary: 'Provider configuration and per-route circuit breaker state',
      handle: () => ({ body: d.health() }),
    },
    ...d.control,
  ];
  routes.push({
    kind: 'json', method: 'get', path: '/openapi.json', auth: 'public',
    summary: 'This document: OpenAPI 3.1, generated from the route table',
    handle: () => ({ body: openapi }),
  }, {
    kind: 'raw', method: 'get', path: '/llms.txt', auth: 'public',
    summary: 'The API summarised for language models (llmstxt.org): how to call it, every route, the model catalog',
    handle: async (_ctx, reply) => reply.send(200, 'text/plain; charset=utf-8', summary),
  });
  // Built from the finished table, so both documents list themselves too.
  const openapi = openApiDocument(routes, GATEWAY_VERSION);
  const summary = llmsTxt(routes, d.listModels().data, GATEWAY_VERSION);
  return routes;
}
