import { writeJsonBytes } from '../../lib/json-bytes.js';
import type { LiteralTable } from '../../lib/json-literals.js';
import { encodeMultipart, textPart, type FormPart } from '../../lib/multipart.js';
import type { AdapterCaps, ClientBytes, Endpoint, ProviderAdapter, UpstreamCall } from '../types.js';

const PATHS: Record<Endpoint, string> = {
  chat: '/chat/completions', embeddings: '/embeddings', transcriptions: '/audio/transcriptions', translations: '/audio/translations', speech: '/audio/speech',
};

/**
 * OpenAI-compatible providers take the request as the client sent it: only the model id is
 * swapped for the provider's, and on streams usage is requested so the last chunk carries it.
 */
export const openAiCompatibleAdapter: ProviderAdapter = {
  endpoints: new Set<Endpoint>(['chat', 'embeddings', 'transcriptions', 'translations', 'speech']),
  buildCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, caps: AdapterCaps): UpstreamCall {
    const out = routed(endpoint, payload, upstreamModel, caps);
    // A chat body's long strings (its messages) are written as bytes at a fraction of
    // JSON.stringify's cost (lib/json-bytes.ts); embeddings inputs may be long arrays of token
    // ids, which JSON.stringify writes faster.
    return { path: PATHS[endpoint], body: endpoint === 'chat' ? writeJsonBytes(out) : JSON.stringify(out) };
  },
  buildLiteralCall(endpoint: Endpoint, payload: Record<string, unknown>, literals: LiteralTable, upstreamModel: string, caps: AdapterCaps): UpstreamCall {
    return { path: PATHS[endpoint], body: writeJsonBytes(routed(endpoint, payload, upstreamModel, caps), literals) };
  },
  buildForwardCall(endpoint: Endpoint, body: ClientBytes, upstreamModel: string, caps: AdapterCaps): UpstreamCall {
    return { path: PATHS[endpoint], body: body.for(upstreamModel, endpoint === 'chat' && caps.streamOptions) };
  },
  buildFormCall(endpoint: Endpoint, fields: readonly FormPart[], upstreamModel: string): UpstreamCall {
    const { body, contentType } = encodeMultipart([textPart('model', upstreamModel), ...fields.map((f) => f.raw)]);
    return { path: PATHS[endpoint], body, contentType };
  },
  authHeaders(apiKey: string): Record<string, string> {
    return { authorization: `Bearer ${apiKey}` };
  },
};

/** The payload for a route: a copy (the next attempt may go to another route) with its model id, usage asked for on a stream. */
function routed(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, caps: AdapterCaps): Record<string, unknown> {
  const out: Record<string, unknown> = { ...payload, model: upstreamModel };
  const given = payload.stream_options;
  if (endpoint === 'chat' && payload.stream === true && caps.streamOptions && !usageRequested(given)) {
    out.stream_options = given && typeof given === 'object' && !Array.isArray(given)
      ? { ...(given as object), include_usage: true }
      : { include_usage: true };
  }
  return out;
}

function usageRequested(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true;
}
