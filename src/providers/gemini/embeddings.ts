import { errors } from '../../errors/catalog.js';

type Json = Record<string, unknown>;

/**
 * OpenAI's embeddings body as Gemini's `batchEmbedContents`: one request per input text, each
 * naming the model (Gemini requires it to match the URL's). `dimensions` becomes
 * `outputDimensionality`. Token-id inputs are refused: Gemini embeds text only.
 */
export function batchEmbedRequest(payload: Json, upstreamModel: string): Json {
  const input = payload.input;
  const texts = typeof input === 'string' ? [input] : input as unknown[];
  const model = `models/${upstreamModel}`;
  const dims = typeof payload.dimensions === 'number' ? payload.dimensions : null;
  const requests = texts.map((t, i) => {
    if (typeof t !== 'string') throw errors.badRequest(`Invalid 'input[${i}]': Gemini embeds text, not token ids`);
    const r: Json = { model, content: { parts: [{ text: t }] } };
    if (dims !== null) r.outputDimensionality = dims;
    return r;
  });
  return { requests };
}

/**
 * Gemini's `{embeddings: [{values}]}` as OpenAI's embeddings list: floats, or with
 * `encoding_format: base64` the little-endian float32 bytes in base64 (what the openai SDK asks
 * for by default, and decodes). Gemini reports no usage here, so none is written: the gateway
 * estimates it from the input and marks the answer so.
 */
export function embeddingList(answer: Json, upstreamModel: string, encoding: string): Json {
  const list = Array.isArray(answer.embeddings) ? answer.embeddings as Json[] : [];
  const data = list.map((e, index) => {
    const values = Array.isArray(e?.values) ? e.values as number[] : [];
    return { object: 'embedding', index, embedding: encoding === 'base64' ? base64Floats(values) : values };
  });
  return { object: 'list', data, model: upstreamModel };
}

function base64Floats(values: readonly number[]): string {
  const f = new Float32Array(values);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64');
}
