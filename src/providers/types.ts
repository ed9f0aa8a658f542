import type { LiteralTable } from '../lib/json-literals.js';
import type { FormPart } from '../lib/multipart.js';
import type { StreamWatch } from '../lib/sse-scanner.js';
import type { TokenUsage } from '../lib/usage-scan.js';

/** The client's JSON body as bytes to forward (dataplane/forward-body.ts). */
export interface ClientBytes {
  /** The bytes for a route whose model id is `upstreamModel`; with `wantUsage`, a stream is made to ask for usage. */
  for(upstreamModel: string, wantUsage: boolean): Buffer | Buffer[];
}

/**
 * A chat body the top-level scan read (dataplane/scanned-body.ts), for an adapter that writes its
 * provider's format from the client's bytes rather than from the decoded payload.
 */
export interface ScannedChat {
  readonly bytes: Buffer;
  /** Per top-level member, in order: its key's offset (the opening quote) and its value's end. */
  readonly layout: readonly number[];
  /** Where the `messages` array opens. */
  readonly messagesAt: number;
  /** The nesting the scan allowed (the body is known to be within it). */
  readonly maxDepth: number;
}

/** What a provider adapter produces for one upstream call. */
export interface UpstreamCall {
  /** Path appended to the provider's base URL, e.g. `/chat/completions`. */
  path: string;
  /**
   * JSON text; the client's JSON bytes sent on as they came (whole, or in pieces around what the
   * gateway edited); or the pieces of a multipart upload (with `contentType`). Pieces are sent one
   * after another, never joined into one copy.
   */
  body: string | Buffer | readonly Buffer[];
  /** Replaces the route's JSON content-type (multipart uploads carry their boundary here). */
  contentType?: string;
  /**
   * Request headers of this call only, after the route's (a client's `anthropic-beta` on a
   * native pass-through); JSON bodies only. Values are checked where they are read.
   */
  headers?: Record<string, string>;
}

/** Inbound formats other than chat completions that a provider may speak as its own (DESIGN.md §6). */
export type NativeFormat = 'anthropic-messages';

/** Token-billed endpoints. */
export type TokenEndpoint = 'chat' | 'embeddings';
/**
 * Audio endpoints, billed per unit: seconds of audio heard (transcriptions, and translations into
 * English), characters spoken (speech).
 */
export type AudioEndpoint = 'transcriptions' | 'translations' | 'speech';
export type Endpoint = TokenEndpoint | AudioEndpoint;

export interface AdapterCaps {
  /** The provider accepts `stream_options.include_usage`. */
  streamOptions: boolean;
  /** Mark long stable prefixes for the provider's prompt cache where it needs markers (Anthropic). */
  promptCache?: boolean;
}

/**
 * A pure translation between the OpenAI wire format the gateway speaks and one provider's.
 * It owns the payload it is given (the caller does not reuse it) and knows nothing of keys,
 * billing or limits.
 */
export interface ProviderAdapter {
  /** The endpoints this wire format can serve; the catalog loader refuses routes to any other. */
  readonly endpoints: ReadonlySet<Endpoint>;
  buildCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, caps: AdapterCaps): UpstreamCall;
  /**
   * The same call from the client's own bytes (a chat or embeddings body the gateway scanned
   * rather than decoded), for a provider that takes the client's format as it is: the body's
   * `for()` sets the model id and, when the provider needs asking, the stream's usage.
   */
  buildForwardCall?(endpoint: Endpoint, body: ClientBytes, upstreamModel: string, caps: AdapterCaps): UpstreamCall;
  /**
   * buildCall from a chat body's bytes, for a translating provider: null when the body has a shape
   * this does not cover, and the caller then decodes the payload for buildCall (which also gives
   * the errors).
   */
  buildScannedCall?(endpoint: Endpoint, body: ScannedChat, upstreamModel: string, caps: AdapterCaps): UpstreamCall | null;
  /**
   * buildCall for a payload whose long strings are placeholders for the client's own literals
   * (lib/json-literals.ts): an adapter that writes the payload as JSON copies them instead.
   */
  buildLiteralCall?(endpoint: Endpoint, payload: Record<string, unknown>, literals: LiteralTable, upstreamModel: string, caps: AdapterCaps): UpstreamCall;
  /**
   * A multipart upload: the client's fields (its `model` and the gateway's extensions already
   * taken out) sent on with the upstream's model id. May throw a GatewayError (400) for a request
   * this provider cannot answer in the form asked.
   */
  buildFormCall?(endpoint: Endpoint, fields: readonly FormPart[], upstreamModel: string): UpstreamCall;
  /**
   * Rewrites a successful whole answer into OpenAI's shape, for providers whose answers differ;
   * absent, answers pass through as the provider wrote them. `format` is the response_format asked for
   * (embeddings: the encoding_format); `upstreamModel` is the provider's model id, for answers that do not name it.
   * `answerModel`, given for chat, is the model the answer is to name (the catalog id the client asked for).
   */
  readAnswer?(endpoint: Endpoint, answer: Buffer, contentType: string, format: string, upstreamModel?: string,
    answerModel?: string): TranslatedAnswer;
  authHeaders(apiKey: string): Record<string, string>;
  /**
   * Providers with their own answer format (Anthropic, Gemini): a chat answer's stream in their
   * format → OpenAI `chat.completion.chunk` SSE, as it arrives. Absent, streams pass through as
   * the provider wrote them. Such adapters also have `readAnswer`, which for `chat` returns an
   * OpenAI `chat.completion` JSON answer (usage normalised as `usage-scan.ts` reads it).
   * `answerModel`, given for chat, is the model every chunk names (the catalog id the client
   * asked for), in place of the provider's: the data plane then has nothing to rename.
   */
  streamTranslator?(endpoint: Endpoint, upstreamModel: string, answerModel?: string): StreamTranslator;
  /** The inbound format this provider speaks as its own, if any. */
  readonly nativeFormat?: NativeFormat;
  /**
   * A request in `nativeFormat`, as the client wrote it (the gateway's extension fields already
   * out), for the upstream model; its answer goes back to the client untouched.
   */
  buildNativeCall?(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, headers: Record<string, string>, caps?: AdapterCaps): UpstreamCall;
  /**
   * The same, from the client's own bytes (model id and the gateway's members edited in place),
   * for a body the scan read and nothing needs to change beyond that (no prompt-cache markers).
   */
  buildNativeForwardCall?(endpoint: Endpoint, body: ClientBytes, upstreamModel: string, headers: Record<string, string>): UpstreamCall;
  /**
   * Needs no credential: the provider is usable without a platform key, and a caller's key
   * (`upstream_key`) is never sent to it.
   */
  readonly keyless?: boolean;
  /**
   * Answers inside the gateway, from the decoded request, with no network exchange: the upstream
   * client calls this in place of sending the adapter's call (the sandbox).
   */
  readonly answerInProcess?: InProcessAnswer;
}

/** An answer made inside the gateway from the decoded request (ProviderAdapter.answerInProcess). */
export type InProcessAnswer = (endpoint: TokenEndpoint, upstreamModel: string, payload: Record<string, unknown>) => UpstreamResponse;

/**
 * One provider stream turned into OpenAI chat-completion SSE (`data: {chunk}\n\n` … `data: [DONE]\n\n`).
 * Bytes may arrive cut anywhere (mid-line, mid-UTF-8 character); the translator keeps unfinished
 * lines. Usage goes in a last chunk with empty `choices`, as OpenAI sends it with `include_usage`.
 */
export interface StreamTranslator {
  /** Provider bytes in; the chat SSE bytes they complete (empty when none yet). */
  push(chunk: Buffer): Buffer;
  /**
   * The counts the usage chunk it has written carries (null until it has written one), for a
   * translator that keeps them; with `done`, the data plane then watches its output through them
   * instead of searching the bytes (dataplane/translated-watch.ts).
   */
  readonly usage?: TokenUsage | null;
  /** Whether it has written `data: [DONE]` (kept with `usage`). */
  readonly done?: boolean;
  /**
   * The provider's stream has ended: what is left. `data: [DONE]` is written only when the
   * provider's stream said the answer was complete (Anthropic's `message_stop`, Gemini's
   * `finishReason`), so a cut stream is never passed on as a clean end.
   */
  end(): Buffer;
}

/** A whole answer in OpenAI's shape, from a provider's own (ProviderAdapter.readAnswer). */
export interface TranslatedAnswer {
  body: Buffer | string;
  contentType: string;
  /** The token counts the body's usage is written from, when the translation knows them: the data plane then does not scan the body for them. */
  usage?: TokenUsage;
}

/**
 * An upstream's answer as the data plane consumes it, whatever the transport: pull-based, with
 * no stream objects in between (they cost more than the rest of a request's handling).
 */
export interface UpstreamResponse {
  readonly status: number;
  readonly contentType: string;
  /**
   * The answer already names the model the client asked for (a translated chat answer, written
   * so), and is not to be renamed; absent, it names the provider's.
   */
  readonly named?: boolean;
  /** The whole body, once it has arrived; rejects (and stops reading) past `maxBytes`. */
  readAll(maxBytes?: number): Promise<Buffer>;
  /**
   * The whole body if it has all arrived already and readAll() would resolve with it, else null
   * (then readAll() is the way): a small answer is usually complete by the time its head is read,
   * and awaiting a settled promise still costs a microtask turn.
   */
  arrived?(): Buffer | null;
  /** The next body chunk, or null at the end; rejects when the transport fails. */
  next(): Promise<Buffer | null>;
  /** The next chunk if one has already arrived, else null; never waits. */
  take(): Buffer | null;
  /** The body has ended cleanly and every chunk has been read. */
  readonly finished: boolean;
  /** Stops reading and releases the connection. */
  cancel(): void;
  /** How long the request waited for a free upstream connection, in ms (the ledger's queue_ms). */
  readonly queueMs: number;
  /** Once readAll() or arrived() has given the body: a translated answer's token counts, as the usage scan would read them from it; else undefined. */
  readonly usage?: TokenUsage;
  /** A stream's watch that knows its usage and end without searching its bytes (a translated stream); absent or null, the relay scans them. */
  watch?(): StreamWatch | null;
}

/** An upstream answer already in memory (an adapter that answers in process). */
export class BufferedResponse implements UpstreamResponse {
  readonly status: number;
  readonly contentType: string;
  readonly queueMs = 0;
  readonly #chunks: Buffer[];
  #i = 0;

  constructor(status: number, contentType: string, chunks: Buffer[]) {
    this.status = status;
    this.contentType = contentType;
    this.#chunks = chunks;
  }

  readAll(): Promise<Buffer> {
    return Promise.resolve(this.arrived());
  }

  arrived(): Buffer {
    return this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
  }

  next(): Promise<Buffer | null> {
    return Promise.resolve(this.take());
  }

  take(): Buffer | null {
    return this.#i < this.#chunks.length ? this.#chunks[this.#i++] : null;
  }

  get finished(): boolean {
    return this.#i >= this.#chunks.length;
  }

  cancel(): void {
    this.#i = this.#chunks.length;
  }
}
