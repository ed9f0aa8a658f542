import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { parseJsonObject } from '../domain/json-body.js';
import { readExtensions, type Extensions } from '../domain/extensions.js';
import type { ForwardBody } from './forward-body.js';
import type { LiteralTable } from '../lib/json-literals.js';
import { scannedBody } from './scanned-body.js';
import type { ClientBytes, NativeFormat, ScannedChat, TokenEndpoint } from '../providers/types.js';

export interface InferenceBody {
  payload: Record<string, unknown>;
  model: string;
  stream: boolean;
  maxTokens: number | null;
  /** The body's size in bytes as the client sent it (a text prompt has no more tokens than this). */
  bytes: number;
  ext: Extensions;
  /**
   * The client's bytes as they can be forwarded (model id, usage request and extension members
   * edited in place), for a body the scan read; null for one that is re-serialised from `payload`.
   */
  raw: ForwardBody | null;
  /**
   * A chat body as the scan read it, for a translating provider that writes its request from the
   * client's bytes (ProviderAdapter.buildScannedCall); absent or null for any other body.
   */
  readonly scanned?: ScannedChat | null;
  /** Whether a stream asks for usage (`stream_options.include_usage: true`); read from `payload` when absent. */
  usageAsked?: boolean;
  /**
   * The client's request in its own format when that is not chat completions (`anthropic-messages`):
   * a route whose provider speaks that format natively is sent this body (model swapped) and its
   * answer passed through, so nothing the translation cannot carry is lost.
   */
  native?: NativeRequest | null;
  /**
   * `payload` with its long strings as placeholders for the client's literals (lib/json-literals.ts),
   * for an adapter that can write them as they came (buildLiteralCall); `payload` itself is the
   * same with every placeholder decoded, for everything else that reads the body.
   */
  literal?: { payload: Record<string, unknown>; literals: LiteralTable } | null;
}

export interface NativeRequest {
  format: NativeFormat;
  payload: Record<string, unknown>;
  /** The client's headers of that format a native provider is sent too (`anthropic-beta`), values already checked. */
  headers: Record<string, string>;
  /**
   * The client's bytes as a native provider can be sent them (model id and extension members
   * edited in place), for a body the scan read (messages-body.ts); absent when `payload` is
   * what is sent.
   */
  forward?: ClientBytes | null;
}

// Only what the gateway itself relies on is checked; every other OpenAI field passes untouched.
const Message = Type.Object({ role: Type.String({ minLength: 1 }) });
export const ChatBodySchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(Message, { minItems: 1 }),
  stream: Type.Optional(Type.Boolean()),
  max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  max_completion_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
});
export const EmbeddingsBodySchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Union([Type.String(), Type.Array(Type.Any(), { minItems: 1 })]),
  encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64')])),
});

const CHECKS: Record<TokenEndpoint, ReturnType<typeof TypeCompiler.Compile<TSchema>>> = {
  chat: TypeCompiler.Compile(ChatBodySchema),
  embeddings: TypeCompiler.Compile(EmbeddingsBodySchema),
};

/**
 * Parses and checks an inference body; throws 400 bad_request with the offending field named.
 * A body the top-level scan reads (nearly every one) is not decoded here at all: its `payload`
 * is parsed only if something asks for it (a translating provider, a usage estimate).
 */
export function parseInferenceBody(endpoint: TokenEndpoint, raw: Buffer): InferenceBody {
  return scannedBody(endpoint, raw) ?? decodedBody(endpoint, raw);
}

/** The full parse, for what the scan does not prove: it refuses exactly what it always refused. */
export function decodedBody(endpoint: TokenEndpoint, raw: Buffer): InferenceBody {
  const p = parseJsonObject(raw.toString('utf8'), CHECKS[endpoint]);
  const ext = readExtensions(p);
  const maxTokens = (p.max_completion_tokens ?? p.max_tokens ?? null) as number | null;
  return { payload: p, model: p.model as string, stream: p.stream === true, maxTokens, bytes: raw.length, ext, raw: null };
}

