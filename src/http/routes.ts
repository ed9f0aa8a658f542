import { HealthBody } from '../control/health.js';
import { ModelList, ModelObject, modelFinder, type ModelListBody } from '../control/model-list.js';
import { errors } from '../errors/catalog.js';
import { ProviderList, type ProviderListBody } from '../control/provider-list.js';
import { ChatBodySchema, EmbeddingsBodySchema } from '../dataplane/inference-body.js';
import type { InferenceService } from '../dataplane/inference-service.js';
import type { MessagesService } from '../dataplane/messages-service.js';
import { ANTHROPIC_ERRORS } from '../formats/messages/error.js';
import { CountTokensBodySchema, MessagesBodySchema } from '../formats/messages/request.js';
import type { AudioService } from '../dataplane/audio-service.js';
import type { ResponsesService } from '../dataplane/responses-service.js';
import { ResponsesBodySchema } from '../formats/responses/request.js';
import { SpeechBodySchema, TranscriptionFormSchema } from '../dataplane/audio-body.js';
import { CACHE_HEADER, type ResponseCacheService } from '../dataplane/response-cache/response-cache-service.js';
import type { ClientReply } from '../domain/client-reply.js';
import type { TokenEndpoint } from '../providers/types.js';
import { llmsTxt } from './llms-txt.js';
import { openApiDocument } from './openapi.js';
import { modelIdRoutes, route, type RequestContext, type RouteSpec } from '../domain/route-spec.js';
import { serverCard, type McpServer } from '../mcp/mcp-server.js';

export const GATEWAY_VERSION = '0.1.0';

export interface RouteDeps {
  inference: InferenceService;
  cache: ResponseCacheService;
  messages: MessagesService;
  audio: AudioService;
  responses: ResponsesService;
  mcp: McpServer;
  /** The gateway's public origin, known once it listens. */
  publicBase: () => string;
  maxAudioFileBytes: number;
  listModels: () => ModelListBody;
  listProviders: () => ProviderListBody;
  health: () => unknown;
  /** Control-plane routes (/auth/*, /me/*), declared by their modules. */
  control: RouteSpec[];
}

/**
 * anthropic-version is accepted and not needed; anthropic-beta goes on to Anthropic routes (the
 * request passes through to them as written). The key comes as x-api-key or Bearer.
 */
const ANTHROPIC_HEADERS = ['anthropic-beta', 'x-gw-guardrails', CACHE_HEADER] as const;
/** A request's own guardrail policy (docs/guardrails.md), read by every inference route that forwards text. */
const GUARDRAIL_HEADERS = ['x-gw-guardrails'] as const;
/** The routes the exact-match response cache may answer (docs/cache.md) read its header too. */
const CACHED_HEADERS = ['x-gw-guardrails', CACHE_HEADER] as const;
const UPLOAD_HEADERS = ['content-type', 'x-gw-guardrails'] as const;
/** Room for the form's other fields and framing around the largest audio file. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

function messagesRequest(ctx: RequestContext<'api_key', Buffer>) {
  return { key: ctx.key, beta: ctx.headers['anthropic-beta'], guardrails: ctx.headers['x-gw-guardrails'], body: ctx.body };
}

/** The route table: every HTTP route, declared once. */
export function buildRoutes(d: RouteDeps): RouteSpec[] {
  /** An audio upload route: the router checks the key from the headers before the upload is read. */
  const upload = (endpoint: 'transcriptions' | 'translations', summary: string): RouteSpec => (route({
    kind: 'raw', method: 'post', path: `/v1/audio/${endpoint}`, auth: 'api_key', headers: UPLOAD_HEADERS,
    body: TranscriptionFormSchema, bodyType: 'multipart/form-data', bodyLimitBytes: d.maxAudioFileBytes + FORM_OVERHEAD_BYTES,
    summary,
    handle: (ctx, reply) => d.audio.handle(endpoint,
      { key: ctx.key, contentType: ctx.headers['content-type'], body: ctx.body, guardrails: ctx.headers['x-gw-guardrails'] }, reply),
  }));
  const findModel = modelFinder(d.listModels);
  const retrieve = (id: string) => {
    const model = findModel(id);
    if (model === null) throw errors.modelNotFound(id);
    return { body: model };
  };
  /** A token endpoint's handler: through the response cache when the request (or the config) asks for it. */
  const inference = (endpoint: TokenEndpoint, path: string) => (ctx: RequestContext<'api_key', Buffer>, reply: ClientReply): Promise<unknown> => {
    const mode = d.cache.modeOf(ctx.headers[CACHE_HEADER], ctx.key);
    const req = { key: ctx.key, body: ctx.body, guardrails: ctx.headers['x-gw-guardrails'] };
    if (mode === 'off') return d.inference.handle(endpoint, req, reply);
    return d.cache.handle(path, endpoint, mode, ctx.key, ctx.body, reply, (r) => d.inference.handle(endpoint, req, r));
  };
  const routes: RouteSpec[] = [
    route({
      kind: 'raw', method: 'post', path: '/v1/chat/completions', auth: 'api_key', body: ChatBodySchema, lendsBody: true, headers: CACHED_HEADERS,
      summary: 'Chat completion (OpenAI format), plain or SSE stream, routed with failover; x-gw-cache: on|always answers repeats from the cache',
      handle: inference('chat', '/v1/chat/completions'),
    }),
    route({
      kind: 'raw', method: 'post', path: '/v1/responses', auth: 'api_key', body: ResponsesBodySchema, lendsBody: true, headers: GUARDRAIL_HEADERS,
      summary: 'Responses API (OpenAI format), plain or typed SSE events, on every catalog model: translated to chat completions, ' +
        'routed with failover; stored per org unless store is false, continued with previous_response_id',
      handle: (ctx, reply) => d.responses.create({ key: ctx.key, body: ctx.body, guardrails: ctx.headers['x-gw-guardrails'] }, reply),
    }),
    route({
      kind: 'json', method: 'get', path: '/v1/responses/:id', auth: 'api_key',
      summary: "A stored response object; 404 response_not_found when the key's org has none with that id",
      handle: async (ctx) => ({ body: await d.responses.retrieve(ctx.key, ctx.params.id) }),
    }),
    route({
      kind: 'json', method: 'get', path: '/v1/responses/:id/input_items', auth: 'api_key',
      summary: 'The items that led to a stored response (its conversation and input), newest first; after, limit (1-100), order',
      handle: async (ctx) => ({ body: await d.responses.inputItems(ctx.key, ctx.params.id, ctx.query) }),
    }),
    route({
      kind: 'json', method: 'del', path: '/v1/responses/:id', auth: 'api_key',
      summary: "Deletes a stored response; 404 response_not_found when the key's org has none with that id",
      handle: async (ctx) => ({ body: await d.responses.remove(ctx.key, ctx.params.id) }),
    }),
    route({
      kind: 'raw', method: 'post', path: '/v1/embeddings', auth: 'api_key', body: EmbeddingsBodySchema, lendsBody: true, headers: CACHED_HEADERS,
      summary: 'Embeddings (OpenAI format), routed with failover; x-gw-cache: on answers repeats from the cache',
      handle: inference('embeddings', '/v1/embeddings'),
    }),
    route({
      kind: 'raw', method: 'post', path: '/v1/messages', auth: 'api_key', headers: ANTHROPIC_HEADERS, lendsBody: true, apiKeyHeader: 'x-api-key', body: MessagesBodySchema,
      errorFormat: ANTHROPIC_ERRORS,
      summary: 'Message (Anthropic Messages API), plain or SSE event stream, on any catalog model, translated and routed with failover; ' +
        "key as x-api-key or Bearer; errors in Anthropic's shape",
      handle: (ctx, reply) => {
        const mode = d.cache.modeOf(ctx.headers[CACHE_HEADER], ctx.key);
        if (mode === 'off') return d.messages.handle(messagesRequest(ctx), reply);
        return d.cache.handle('/v1/messages', 'chat', mode, ctx.key, ctx.body, reply, (r) => d.messages.handle(messagesRequest(ctx), r));
      },
    }),
    route({
      kind: 'raw', method: 'post', path: '/v1/messages/count_tokens', auth: 'api_key', headers: ANTHROPIC_HEADERS, apiKeyHeader: 'x-api-key', body: CountTokensBodySchema,
      errorFormat: ANTHROPIC_ERRORS,
      summary: "Input tokens of a Messages API request, the gateway's estimate (not the model's tokenizer); not billed or rate-limited",
      handle: async (ctx, reply) => reply.send(200, 'application/json', JSON.stringify(d.messages.countTokens(messagesRequest(ctx)))),
    }),
    upload('transcriptions', 'Speech to text (OpenAI format, multipart), routed with failover; billed per second of audio at the per-minute price'),
    upload('translations', 'Speech in any language to English text (OpenAI format, multipart), on models that translate; billed as transcriptions'),
    route({
      kind: 'raw', method: 'post', path: '/v1/audio/speech', auth: 'api_key', body: SpeechBodySchema, headers: GUARDRAIL_HEADERS,
      summary: 'Text to speech (OpenAI format), Hindi voices included, streamed; billed per 1M input characters',
      handle: (ctx, reply) => d.audio.handle('speech', { key: ctx.key, contentType: '', body: ctx.body, guardrails: ctx.headers['x-gw-guardrails'] }, reply),
    }),
    route({
      kind: 'raw', method: 'post', path: '/mcp', auth: 'api_key', headers: ['mcp-protocol-version'],
      summary: 'MCP server (streamable HTTP, one JSON-RPC message a request, stateless): tools list_models, chat, account, ' +
        'list_keys and create_ephemeral_key; resources gw://models and gw://account; bearer gw- key',
      handle: (ctx, reply) => d.mcp.handle(ctx.key, ctx.body, reply, ctx.headers['mcp-protocol-version']),
    }),
    route({
      kind: 'json', method: 'get', path: '/.well-known/mcp/server-card.json', auth: 'public',
      summary: 'MCP server card: name, version, the streamable HTTP endpoint, bearer auth and the tools',
      handle: () => ({ body: serverCard(d.publicBase(), GATEWAY_VERSION, d.mcp.toolList) }),
    }),
    route({
      kind: 'json', method: 'get', path: '/v1/models', auth: 'public', response: ModelList,
      summary: 'Model catalog with INR pricing, residency, languages, context length and per-route health',
      handle: () => ({ body: d.listModels() }),
    }),
    ...modelIdRoutes({
      kind: 'json', method: 'get', prefix: '/v1/models', auth: 'public', response: ModelObject,
      summary: 'One catalog model (models.retrieve), as /v1/models lists it; 404 model_not_found for an id not in the catalog',
    }, retrieve),
    route({
      kind: 'json', method: 'get', path: '/v1/providers', auth: 'public', response: ProviderList,
      summary: 'Provider registry: configured status, residency, BYOK support, platform-key fallback, data handling and health',
      handle: () => ({ body: d.listProviders() }),
    }),
    route({
      kind: 'json', method: 'get', path: '/health', auth: 'public', response: HealthBody,
      summary: 'Provider configuration and per-route circuit breaker state',
      handle: () => ({ body: d.health() }),
    }),
    ...d.control,
  ];
  routes.push(route({
    kind: 'json', method: 'get', path: '/openapi.json', auth: 'public',
    summary: 'This document: OpenAPI 3.1, generated from the route table',
    handle: () => ({ body: openapi }),
  }), route({
    kind: 'raw', method: 'get', path: '/llms.txt', auth: 'public',
    summary: 'The API summarised for language models (llmstxt.org): how to call it, every route, the model catalog',
    handle: async (_ctx, reply) => reply.send(200, 'text/plain; charset=utf-8', summary),
  }));
  // Built from the finished table, so both documents list themselves too.
  const openapi = openApiDocument(routes, GATEWAY_VERSION);
  const summary = llmsTxt(routes, d.listModels().data, GATEWAY_VERSION);
  return routes;
}
