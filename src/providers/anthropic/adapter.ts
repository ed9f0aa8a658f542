import { writeJsonBytes } from '../../lib/json-bytes.js';
import type { AdapterCaps, ClientBytes, Endpoint, ProviderAdapter, ScannedChat, StreamTranslator, TranslatedAnswer, UpstreamCall } from '../types.js';
import { toChatCompletion } from './answer.js';
import { chatCompletionInPlace } from './answer-in-place.js';
import { markStablePrefix } from './cache-markers.js';
import { toMessagesRequest } from './request.js';
import { anthropicRequestBytes } from './request-bytes.js';
import { messagesRequestJson } from './request-json.js';
import { AnthropicStreamTranslator } from './stream.js';
import { emptyCounts, tokenUsage } from './usage.js';

/** The API version the translators are written against (Anthropic requires the header). */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic's Messages API (`POST /v1/messages`), reached with OpenAI chat completions: requests
 * are translated into its shape, answers and streams back into OpenAI's, with usage in the
 * gateway's canonical convention. Anthropic serves no embeddings.
 */
export const anthropicAdapter: ProviderAdapter = {
  endpoints: new Set<Endpoint>(['chat']),
  buildCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, caps: AdapterCaps): UpstreamCall {
    if (endpoint !== 'chat') throw new Error(`the anthropic adapter serves chat, not ${endpoint}`);
    const body = toMessagesRequest(payload, upstreamModel);
    if (caps.promptCache === true) markStablePrefix(body, upstreamModel);
    return { path: '/messages', body: messagesRequestJson(body) };
  },
  buildScannedCall(endpoint: Endpoint, body: ScannedChat, upstreamModel: string, caps: AdapterCaps): UpstreamCall | null {
    // Prompt-cache markers are placed on the built objects (cache-markers.ts).
    if (endpoint !== 'chat' || caps.promptCache === true) return null;
    const bytes = anthropicRequestBytes(body, upstreamModel);
    return bytes === null ? null : { path: '/messages', body: bytes };
  },
  nativeFormat: 'anthropic-messages',
  buildNativeCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, headers: Record<string, string>, caps?: AdapterCaps): UpstreamCall {
    if (endpoint !== 'chat') throw new Error(`the anthropic adapter serves chat, not ${endpoint}`);
    // The client's Messages body as it wrote it; only the model is the provider's id for it. Its
    // beta flags go too: fields such as context_management are refused without them.
    const beta = headers['anthropic-beta'];
    const body = { ...payload, model: upstreamModel };
    if (caps?.promptCache === true) markStablePrefix(body, upstreamModel);
    const call: UpstreamCall = { path: '/messages', body: writeJsonBytes(body) };
    if (beta !== undefined) call.headers = { 'anthropic-beta': beta };
    return call;
  },
  buildNativeForwardCall(endpoint: Endpoint, body: ClientBytes, upstreamModel: string, headers: Record<string, string>): UpstreamCall {
    if (endpoint !== 'chat') throw new Error(`the anthropic adapter serves chat, not ${endpoint}`);
    const beta = headers['anthropic-beta'];
    const call: UpstreamCall = { path: '/messages', body: body.for(upstreamModel, false) };
    if (beta !== undefined) call.headers = { 'anthropic-beta': beta };
    return call;
  },
  // `created` (Date.now() below) is the answering side's wall time, as an OpenAI upstream stamps its
  // own: adapters are pure and are handed no clock.
  readAnswer(endpoint: Endpoint, answer: Buffer, contentType: string, _format: string, _upstreamModel?: string,
    answerModel?: string): TranslatedAnswer {
    if (endpoint !== 'chat') return { body: answer, contentType };
    const counts = emptyCounts();
    const now = Date.now();
    const body = chatCompletionInPlace(answer, now, answerModel, counts) ?? toChatCompletion(answer, '', now, answerModel, counts);
    return { body, contentType: 'application/json', usage: tokenUsage(counts) };
  },
  streamTranslator(_endpoint: Endpoint, upstreamModel: string, answerModel?: string): StreamTranslator {
    return new AnthropicStreamTranslator(upstreamModel, Date.now(), answerModel);
  },
  authHeaders(apiKey: string): Record<string, string> {
    return { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  },
};
