import type { ModelListBody } from '../control/model-list.js';
import type { RouteSpec } from '../domain/route-spec.js';

const AUTH: Record<RouteSpec['auth'], string> = { api_key: 'API key', public: 'public', session: 'session' };

/**
 * /llms.txt (llmstxt.org): the API summarised for a language model that has to use it: how to
 * call it, every route with its auth, and the catalog. Built once from the route table and the
 * catalog, so it cannot drift from what the gateway serves.
 */
export function llmsTxt(routes: readonly RouteSpec[], models: ModelListBody['data'], version: string): string {
  const lines = [
    '# gw inference gateway',
    '',
    `> An OpenAI-compatible inference gateway (version ${version}): point any OpenAI SDK at {base_url}/v1 with a gw- API key.`,
    '> It routes each request across providers with failover and circuit breakers, streams, and bills per request in INR.',
    '',
    '- Auth: `Authorization: Bearer gw-…` on /v1 inference routes; dashboard routes (/me/*) use the gw_session cookie.',
    '- Extensions to inference bodies (chat, embeddings, speech; form fields on transcriptions), removed before the request leaves: `optimize` (price, latency, throughput),',
    '  `provider` (an id or an ordered list), `data_policy` (india_only, no_training, zero_retention), `upstream_key`, `cache` ("auto": prompt-cache markers on Anthropic routes; "off": none, whatever the key or org sets),',
    '  `guardrails` (also the `x-gw-guardrails` header: `redact=aadhaar,pan;block=card;outputs`, groups india/secrets/all, `off`; 400 `guardrail_blocked`).',
    '- `model` is a catalog id (below), or `provider/model-id` for any model of a BYOK provider, served on your own key in `upstream_key`.',
    '- Audio: /v1/audio/transcriptions and /v1/audio/translations (to English; models marked translates) take multipart (`file`, `model`), billed per second; /v1/audio/speech takes JSON, billed per character.',
    '- The provider that served a request is in the `x-gw-provider` header; every answer has an `x-request-id` (on inference, the id of its ledger rows).',
    '- Errors are always `{"error":{"message","type","code"}}`; `retry-after` accompanies 429 and 503.',
    '- The full schema: [/openapi.json](/openapi.json).',
    '',
    '## Endpoints',
    '',
  ];
  for (const r of routes) lines.push(`- ${r.method === 'del' ? 'DELETE' : r.method.toUpperCase()} ${r.path} (${AUTH[r.auth]}): ${r.summary}`);
  lines.push('', '## Models', '');
  for (const m of models) {
    const price = m.pricing.unit === 'per_minute' ? `₹${m.pricing.input} per minute of audio`
      : m.pricing.unit === 'per_1m_characters' ? `₹${m.pricing.input} per 1M characters`
        : `${m.context_length} tokens of context, ₹${m.pricing.input} in${cacheNote(m.pricing)} / ₹${m.pricing.output} out per 1M tokens`;
    lines.push(`- ${m.id}: ${m.name}; ${m.kind}, ${price}${m.available ? '' : ' (no provider configured on this gateway)'}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The cache prices after the input price, when the catalog has them: ` (cached ₹6.6, cache write ₹330)`. */
function cacheNote(p: { cached_input?: number; cache_write?: number }): string {
  const parts: string[] = [];
  if (p.cached_input !== undefined) parts.push(`cached ₹${p.cached_input}`);
  if (p.cache_write !== undefined) parts.push(`cache write ₹${p.cache_write}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}
