import type { RouteSpec } from '../domain/route-spec.js';
import { SPEC_ERRORS } from '../errors/error-format.js';
import { EXTENSION_PROPERTIES, INFERENCE_ANSWERS, INFERENCE_REQUESTS, INFERENCE_SCHEMAS, OPERATION_IDS } from './openapi-inference.js';

const ERROR_CONTENT = errorContent(SPEC_ERRORS.schema.name);
const REQUEST_ID = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };

const AUTH_ERRORS: Record<RouteSpec['auth'], Record<string, string>> = {
  api_key: { 401: 'invalid_api_key (WWW-Authenticate: Bearer)', 402: 'insufficient_credits', 429: 'rate_limit_exceeded, daily_limit_reached or budget_exceeded (retry-after)' },
  session: { 401: 'no_session', 403: 'forbidden (role or cross-site)' },
  public: { 429: 'rate_limit_exceeded (per IP, retry-after)' },
};

const RAW_ANSWERS: Record<string, string> = {
  '/v1/chat/completions': 'chat.completion JSON, or text/event-stream when stream is true',
  '/v1/audio/transcriptions': 'the transcription in the requested response_format (json, text, srt, verbose_json, vtt), as the provider wrote it',
  '/v1/audio/translations': 'the English text in the requested response_format, as the provider wrote it',
  '/v1/audio/speech': 'audio bytes in the requested response_format (audio/mpeg by default), streamed as the provider produces them',
  '/me/billing/receipts/:paymentId': 'the receipt as a printable text/html page',
  '/me/activity/events.csv': 'text/csv (RFC 4180, header row) as an attachment (Content-Disposition), streamed',
};

/** Plain JSON Schema from a typebox schema (drops typebox's symbol keys). */
const plain = (s: unknown) => JSON.parse(JSON.stringify(s));

/** An error answer's content: the route's error format's schema. */
function errorContent(name: string): Record<string, unknown> {
  return { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } };
}

/** `get /me/keys/:id` → getMeKeysById: unique because method and path are. */
function operationId(method: string, path: string): string {
  const known = OPERATION_IDS[`${method} ${path}`];
  if (known) return known;
  const words = path.split(/[/.\-_]/).filter(Boolean).map((w) => (w.startsWith(':') ? `By${cap(w.slice(1))}` : cap(w)));
  return `${method === 'del' ? 'delete' : method}${words.join('')}`;
}
const cap = (w: string): string => w[0].toUpperCase() + w.slice(1);

/** A table body schema with the gateway's extension fields added (speech JSON, upload forms). */
function withExtensions(schema: Record<string, any>): Record<string, unknown> {
  return { ...schema, properties: { ...schema.properties, ...EXTENSION_PROPERTIES } };
}

/** The OpenAPI 3.1 document, derived from the same route table that serves requests. */
export function openApiDocument(routes: readonly RouteSpec[], version: string): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorSchemas: Record<string, unknown> = { [SPEC_ERRORS.schema.name]: SPEC_ERRORS.schema.json };
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const method = r.method === 'del' ? 'delete' : r.method;
    const params = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const format = r.errorFormat ?? SPEC_ERRORS;
    errorSchemas[format.schema.name] = format.schema.json;
    const content = format === SPEC_ERRORS ? ERROR_CONTENT : errorContent(format.schema.name);
    const error = (description: string) => ({ description, headers: REQUEST_ID, content });
    const answer = INFERENCE_ANSWERS[`${method} ${r.path}`] ?? INFERENCE_ANSWERS[r.path];
    const responses: Record<string, unknown> = r.redirects
      ? r.redirects === 303
        ? { 303: { description: 'See Other (Location header): the browser goes on with a GET', headers: REQUEST_ID } }
        : { 302: { description: 'Redirect (Location header), with Set-Cookie where a session starts', headers: REQUEST_ID } }
      : {
        [r.method === 'post' && r.auth === 'session' ? '2XX' : '200']: answer
          ? { description: RAW_ANSWERS[r.path] ?? 'OK', headers: REQUEST_ID, content: answer }
          : r.response
            ? { description: 'OK', headers: REQUEST_ID, content: { 'application/json': { schema: plain(r.response) } } }
            : { description: RAW_ANSWERS[r.path] ?? 'OK', headers: REQUEST_ID },
      };
    responses[400] = error('bad_request and the rule codes of this endpoint');
    for (const [status, what] of Object.entries(AUTH_ERRORS[r.auth])) responses[status] = error(what);
    if (r.auth === 'api_key' && r.path.startsWith('/v1/')) {
      responses[404] = error('model_not_found');
      responses[502] = error('all_routes_failed');
      responses[503] = error('overloaded (retry-after): the ledger writer is behind, or buffered upstream answers are at upstream.maxBufferedBytes');
    }
    if (r.path.startsWith('/v1/models/')) responses[404] = error('model_not_found');
    if (r.path === '/v1/responses') responses[404] = error('model_not_found, or response_not_found for a previous_response_id the org does not have');
    if (r.path.startsWith('/v1/responses/')) responses[404] = error('response_not_found');
    const body = INFERENCE_REQUESTS[r.path]
      ?? (r.body ? { [r.bodyType ?? 'application/json']: { schema: r.auth === 'api_key' && r.path.startsWith('/v1/') ? withExtensions(plain(r.body)) : plain(r.body) } } : null);
    (paths[path] ??= {})[method] = {
      operationId: operationId(r.method, r.path),
      summary: r.summary,
      ...(params.length ? { parameters: params } : {}),
      ...(r.auth === 'api_key' ? { security: r.apiKeyHeader === 'x-api-key' ? [{ bearerAuth: [] }, { apiKeyHeader: [] }] : [{ bearerAuth: [] }] } : r.auth === 'session' ? { security: [{ sessionCookie: [] }] } : { security: [] }),
      ...(body ? { requestBody: { required: true, content: body } } : {}),
      ...(r.role ? { 'x-gw-role': r.role } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'gw inference gateway', version, description: 'OpenAI-compatible inference with INR billing; dashboard endpoints under /me.' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'gw- or gw-trial- API key' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'the same key as Anthropic clients send it (/v1/messages)' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'gw_session' },
      },
      headers: {
        RequestId: { description: 'this request\'s id (on inference, its ledger rows\'; also x-gw-request-id there)', schema: { type: 'string' } },
      },
      schemas: { ...errorSchemas, ...INFERENCE_SCHEMAS },
    },
    paths,
  };
}
