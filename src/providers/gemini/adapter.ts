import { writeJson } from '../../lib/json-write.js';
import type { AdapterCaps, Endpoint, ProviderAdapter, StreamTranslator, UpstreamCall } from '../types.js';
import { chatCompletion } from './answer.js';
import { batchEmbedRequest, embeddingList } from './embeddings.js';
import { generateContentRequest } from './request.js';
import { GeminiStreamTranslator } from './stream.js';

const JSON_TYPE = 'application/json';

/**
 * Google's Gemini API (AI Studio, `generativelanguage.googleapis.com/v1beta`) in its own format:
 * chat → `models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` for streams;
 * embeddings → `models/{model}:batchEmbedContents`. Its answers and streams are translated back
 * into OpenAI's, usage in the gateway's canonical convention (usage.ts).
 */
export const geminiAdapter: ProviderAdapter = {
  endpoints: new Set<Endpoint>(['chat', 'embeddings']),
  buildCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, _caps: AdapterCaps): UpstreamCall {
    const model = encodeURIComponent(upstreamModel);
    if (endpoint === 'embeddings') {
      return { path: `/models/${model}:batchEmbedContents`, body: JSON.stringify(batchEmbedRequest(payload, upstreamModel)) };
    }
    if (endpoint !== 'chat') throw new Error(`the gemini adapter serves chat and embeddings, not ${endpoint}`);
    const path = payload.stream === true ? `/models/${model}:streamGenerateContent?alt=sse` : `/models/${model}:generateContent`;
    return { path, body: writeJson(generateContentRequest(payload)) };
  },
  readAnswer(endpoint: Endpoint, answer: Buffer, contentType: string, format: string, upstreamModel = '',
    answerModel?: string): { body: Buffer | string; contentType: string } {
    let doc: unknown;
    try {
      doc = JSON.parse(answer.toString('utf8'));
    } catch {
      return { body: answer, contentType };
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { body: answer, contentType };
    const out = endpoint === 'embeddings'
      ? embeddingList(doc as Record<string, unknown>, upstreamModel, format)
      : chatCompletion(doc, upstreamModel, answerModel);
    // Embeddings are long arrays of numbers, which JSON.stringify writes faster.
    return { body: endpoint === 'embeddings' ? JSON.stringify(out) : writeJson(out), contentType: JSON_TYPE };
  },
  streamTranslator(_endpoint: Endpoint, upstreamModel: string, answerModel?: string): StreamTranslator {
    return new GeminiStreamTranslator(answerModel ?? upstreamModel);
  },
  authHeaders(apiKey: string): Record<string, string> {
    return { 'x-goog-api-key': apiKey };
  },
};
