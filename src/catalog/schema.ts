import { Type, type Static } from '@sinclair/typebox';

const Price = Type.Object({
  input: Type.Number({ minimum: 0 }),
  output: Type.Number({ minimum: 0 }),
  /** ₹ per 1M input tokens read from the provider's prompt cache; absent, they cost `input`. */
  cachedInput: Type.Optional(Type.Number({ minimum: 0 })),
  /** ₹ per 1M input tokens written to the prompt cache (Anthropic charges writes); absent, they cost `input`. */
  cacheWrite: Type.Optional(Type.Number({ minimum: 0 })),
}, { additionalProperties: false });

export const ProviderEntry = Type.Object({
  id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$' }),
  name: Type.String(),
  kind: Type.Union([Type.Literal('openai-compatible'), Type.Literal('sandbox'), Type.Literal('sarvam'), Type.Literal('anthropic'),
    Type.Literal('gemini')]),
  baseUrl: Type.String(),
  keyEnv: Type.Union([Type.String(), Type.Null()]),
  residency: Type.String({ minLength: 2 }),
  byok: Type.Boolean(),
  streamOptions: Type.Boolean(),
  trainsOnInputs: Type.Boolean(),
  zeroRetention: Type.Boolean(),
  /**
   * Runs on the operator's own machine (a speaches or vLLM server): needs no key (one is sent if
   * set) and stays off until `providers.<id>.enabled` or `providers.<id>.baseUrl` is set, so a
   * server that was never started is not tried.
   */
  selfHosted: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const ModelEntry = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.String(),
  kind: Type.Union([Type.Literal('chat'), Type.Literal('embedding'), Type.Literal('transcription'), Type.Literal('speech')]),
  contextLength: Type.Integer({ minimum: 1 }),
  languages: Type.Array(Type.String()),
  /**
   * ₹ per 1M tokens (chat, embedding); ₹ per minute of audio (transcription: `input`); ₹ per 1M
   * input characters (speech: `input`). Audio models have `output` 0.
   */
  priceInr: Price,
  /** Transcription models only: every route also translates speech into English (/v1/audio/translations). */
  translates: Type.Optional(Type.Boolean()),
  /** The same model's id at the router /v1/pricing/compare reads (OpenRouter's model list), if it lists it. */
  compareId: Type.Optional(Type.String({ minLength: 1 })),
  routes: Type.Array(Type.Object({
    provider: Type.String(),
    upstreamModel: Type.String({ minLength: 1 }),
    priceInr: Type.Optional(Price),
  }, { additionalProperties: false }), { minItems: 1 }),
}, { additionalProperties: false });

export const CatalogFile = Type.Object({
  $comment: Type.Optional(Type.String()),
  providers: Type.Array(ProviderEntry),
  models: Type.Array(ModelEntry),
}, { additionalProperties: false });

export type ProviderEntry = Static<typeof ProviderEntry>;
export type ModelEntry = Static<typeof ModelEntry>;
export type CatalogFile = Static<typeof CatalogFile>;
