import type { RouteSpec } from '../domain/route-spec.js';

const ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code'],
      properties: { message: { type: 'string' }, type: { type: 'string' }, code: { type: 'string', description: 'stable machine code; branch on this' } },
    },
  },
};

const AUTH_ERRORS: Record<RouteSpec['auth'], Record<string, string>> = {
  api_key: { 401: 'invalid_api_key', 402: 'insufficient_credits', 429: 'rate_limit_exceeded, daily_limit_reached or budget_exceeded (retry-after)' },
  session: { 401: 'no_session', 403: 'forbidden (role or cross-site)' },
  public: { 429: 'rate_limit_exceeded (per IP, retry-after)' },
};

const RAW_ANSWERS: Record<string, string> = {
  '/v1/chat/completions': 'chat.completion JSON, or text/event-stream when stream is true',
  '/v1/audio/transcriptions': 'the transcription in the requested response_format (json, text, srt, verbose_json, vtt), as the provider wrote it',
  '/v1/audio/translations': 'the English text in the requested response_format, as the provider wrote it',
  '/v1/audio/speech': 'audio bytes in the requested response_format (audio/mpeg by default), streamed as the provider produces them',
  '/me/billing/receipts/:paymentId': 'the receipt as a printable text/html page',
};

/** Plain JSON Schema from a typebox schema (drops typebox's symbol keys). */
const plain = (s: unknown) => JSON.parse(JSON.stringify(s));

/** The OpenAPI 3.1 document, derived from the same route table that serves requests. */
export function openApiDocument(routes: readonly RouteSpec[], version: string): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const method = r.method === 'del' ? 'delete' : r.method;
    const params = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const responses: Record<string, unknown> = r.redirects
      ? { 302: { description: 'Redirect (Location header), with Set-Cookie where a session starts' } }
      : {
        [r.method === 'post' && r.auth === 'session' ? '2XX' : '200']: r.response
          ? { description: 'OK', content: { 'application/json': { schema: plain(r.response) } } }
          : { description: RAW_ANSWERS[r.path] ?? 'OK' },
      };
    responses[400] = { description: 'bad_request and the rule codes of this endpoint', content: { 'application/json': { schema: ERROR } } };
    for (const [status, what] of Object.entries(AUTH_ERRORS[r.auth])) responses[status] = { description: what, content: { 'application/json': { schema: ERROR } } };
    if (r.auth === 'api_key' && r.path.startsWith('/v1/')) {
      responses[404] = { description: 'model_not_found', content: { 'application/json': { schema: ERROR } } };
      responses[502] = { description: 'all_routes_failed', content: { 'application/json': { schema: ERROR } } };
      responses[503] = {
        description: 'overloaded (retry-after): the ledger writer is behind, or buffered upstream answers are at upstream.maxBufferedBytes',
        content: { 'application/json': { schema: ERROR } },
      };
    }
    (paths[path] ??= {})[method] = {
      summary: r.summary,
      ...(params.length ? { parameters: params } : {}),
      ...(r.auth === 'api_key' ? { security: [{ bearerAuth: [] }] } : r.auth === 'session' ? { security: [{ sessionCookie: [] }] } : { security: [] }),
      ...(r.body ? { requestBody: { required: true, content: { [r.bodyType ?? 'application/json']: { schema: plain(r.body) } } } } : {}),
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
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'gw_session' },
      },
      schemas: { Error: ERROR },
    },
    paths,
  };
}
