import { createHash } from 'node:crypto';
import { BufferedResponse, type TokenEndpoint, type UpstreamResponse } from '../types.js';

/**
 * The built-in `sandbox` provider answers inside the gateway, so a fresh install can be tried
 * end to end (and load-tested) with no upstream account. `echo` repeats the last user message;
 * `embed` returns a deterministic unit vector per input. Tokens are estimated at 4 characters each.
 */
export function sandboxRespond(endpoint: TokenEndpoint, upstreamModel: string, payload: Record<string, unknown>): UpstreamResponse {
  if (endpoint === 'embeddings') return jsonResponse(embed(payload, upstreamModel));
  const text = `echo: ${lastUserText(payload.messages)}`;
  const promptTokens = estimateTokens(JSON.stringify(payload.messages ?? ''));
  const completionTokens = estimateTokens(text);
  // Wall time, as a real upstream stamps its answers.
  const id = `chatcmpl-sandbox-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = `sandbox/${upstreamModel}`;
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  if (payload.stream !== true) {
    return jsonResponse({
      id, object: 'chat.completion', created, model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage,
    });
  }
  const events: Buffer[] = [];
  const words = text.split(/(?<= )/);
  words.forEach((w, i) => {
    const delta = i === 0 ? { role: 'assistant', content: w } : { content: w };
    events.push(sse({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null }] }));
  });
  events.push(sse({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  const opts = payload.stream_options as { include_usage?: boolean } | undefined;
  if (opts?.include_usage) events.push(sse({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }));
  events.push(Buffer.from('data: [DONE]\n\n'));
  return new BufferedResponse(200, 'text/event-stream', events);
}

function embed(payload: Record<string, unknown>, upstreamModel: string): unknown {
  const input = payload.input;
  const inputs: string[] = Array.isArray(input) ? input.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [String(input ?? '')];
  const base64 = payload.encoding_format === 'base64';
  let tokens = 0;
  const data = inputs.map((text, index) => {
    tokens += estimateTokens(text);
    const vec = vectorFor(text);
    return { object: 'embedding', index, embedding: base64 ? Buffer.from(vec.buffer).toString('base64') : Array.from(vec) };
  });
  return { object: 'list', data, model: `sandbox/${upstreamModel}`, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

const DIMENSIONS = 64;

function vectorFor(text: string): Float32Array {
  const digest = createHash('sha512').update(text).digest();
  const v = new Float32Array(DIMENSIONS);
  let norm = 0;
  for (let i = 0; i < DIMENSIONS; i++) {
    v[i] = digest[i % digest.length] / 127.5 - 1;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < DIMENSIONS; i++) v[i] /= norm;
  return v;
}

function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown };
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      return m.content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join(' ');
    }
  }
  return '';
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function sse(obj: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(obj)}\n\n`);
}

function jsonResponse(obj: unknown): UpstreamResponse {
  return new BufferedResponse(200, 'application/json', [Buffer.from(JSON.stringify(obj))]);
}
