import { MAX_JSON_DEPTH } from '../domain/json-body.js';
import { moduleHolding, scanObject, WantedNames, type ObjectScan } from '../lib/json-scan.js';
import type { ScannedChat, TokenEndpoint } from '../providers/types.js';
import { EXTENSION_NAMES, NO_EXTENSIONS, type Extensions } from '../domain/extensions.js';
import { booleanAt, extensionsAt, hasBackslash, modelAt, stringAt, tokensAt } from '../formats/body-spans.js';
import { ForwardBody } from './forward-body.js';
import type { InferenceBody } from './inference-body.js';

// The members the gateway reads from a chat-completions or embeddings body; the extensions last.
const MODEL = 0;
const MESSAGES = 1;
const STREAM = 2;
const STREAM_OPTIONS = 3;
const MAX_TOKENS = 4;
const MAX_COMPLETION_TOKENS = 5;
const INPUT = 6;
const ENCODING_FORMAT = 7;
const FIRST_EXTENSION = 8;
const WANTED = new WantedNames(['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'input',
  'encoding_format', ...EXTENSION_NAMES]);
const CHAT_SCAN = { wanted: WANTED, elements: MESSAGES, elementKeys: [Buffer.from('role')], maxDepth: MAX_JSON_DEPTH };
const EMBEDDINGS_SCAN = { wanted: WANTED, maxDepth: MAX_JSON_DEPTH };

const QUOTE = 0x22;
/** stream_options as the SDKs that ask for usage write it (the OpenAI and Vercel AI SDKs: JSON.stringify's spelling). */
const USAGE_ASKED = Buffer.from('{"include_usage":true}');

/**
 * The stream_options value at raw[start, end) (valid JSON: the scan proved it), decoded. Its
 * usual spelling is known without the decode and the parse: 2.5k instructions of a 1 KB stream's
 * main thread, of 115k (callgrind, gateway-stream, issue 17).
 */
function streamOptionsAt(raw: Buffer, start: number, end: number): unknown {
  if (end - start === USAGE_ASKED.length) {
    let i = 0;
    while (i < USAGE_ASKED.length && raw[start + i] === USAGE_ASKED[i]) i++;
    if (i === USAGE_ASKED.length) return { include_usage: true };
  }
  return JSON.parse(raw.toString('utf8', start, end)) as unknown;
}

/**
 * An inference body read by the top-level scan: what routing and billing need is read from the
 * members' bytes, and the request leaves as the client's bytes (ForwardBody). Null when the scan
 * cannot prove the body valid, or the body fails any check of ChatBodySchema / EmbeddingsBodySchema
 * (inference-body.ts), which this mirrors: the full parse then refuses it with its own message.
 */
export function scannedBody(endpoint: TokenEndpoint, raw: Buffer): InferenceBody | null {
  const s = scanObject(raw, endpoint === 'chat' ? CHAT_SCAN : EMBEDDINGS_SCAN);
  if (s === null) return null;
  const m = s.members;
  const modelSpan = m[MODEL];
  const model = modelSpan === null ? null : modelAt(raw, modelSpan);
  if (model === null || model.length === 0) return null;
  if (endpoint === 'chat' ? !messagesValid(raw, s) : !embeddingsValid(raw, s)) return null;
  const stream = booleanAt(raw, m[STREAM]);
  if (stream === null) return null;
  const maxTokens = tokensAt(raw, m[MAX_TOKENS]);
  const maxCompletion = tokensAt(raw, m[MAX_COMPLETION_TOKENS]);
  if (maxTokens === undefined || maxCompletion === undefined) return null;

  // The schema has passed, so the extensions' errors are the ones the full parse would give.
  const { ext, cuts } = extensionsAt(raw, s, WANTED, FIRST_EXTENSION);
  const so = m[STREAM_OPTIONS];
  const options = so === null ? undefined : streamOptionsAt(raw, so.start, so.end);
  const usageAsked = typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true;
  const forward = new ForwardBody(raw, {
    modelStart: modelSpan!.start, modelEnd: modelSpan!.end, modelPlain: !hasBackslash(raw, modelSpan!.start, modelSpan!.end),
    model, streamOptions: so === null ? null : { start: so.start, end: so.end, value: options },
    stream: stream === true, usageAsked, open: s.open, cuts,
  });
  return new ScannedBody(raw, model, stream === true, maxCompletion ?? maxTokens ?? null, ext, forward, usageAsked,
    endpoint === 'chat' ? s.layout : null, endpoint === 'chat' ? m[MESSAGES]!.start : -1);
}

/**
 * The body for everything that does read it whole (a translating provider, a usage estimate, a
 * media check): decoded on first use. The scan proved it valid and no deeper than the limit.
 */
class ScannedBody implements InferenceBody {
  readonly model: string;
  readonly stream: boolean;
  readonly maxTokens: number | null;
  readonly bytes: number;
  readonly ext: Extensions;
  readonly raw: ForwardBody;
  readonly usageAsked: boolean;
  readonly #bytes: Buffer;
  #payload: Record<string, unknown> | null = null;
  /** A chat body's members as the scan found them, and where its messages open: for `scanned`. */
  readonly #layout: readonly number[] | null;
  readonly #messagesAt: number;

  constructor(bytes: Buffer, model: string, stream: boolean, maxTokens: number | null, ext: Extensions,
    raw: ForwardBody, usageAsked: boolean, layout: readonly number[] | null, messagesAt: number) {
    this.#bytes = bytes;
    this.#layout = layout;
    this.#messagesAt = messagesAt;
    this.model = model;
    this.stream = stream;
    this.maxTokens = maxTokens;
    this.bytes = bytes.length;
    this.ext = ext;
    this.raw = raw;
    this.usageAsked = usageAsked;
  }

  /** A chat body as the scan read it, for a provider that writes its own format from the client's bytes (made when asked). */
  get scanned(): ScannedChat | null {
    return this.#layout === null ? null : { bytes: this.#bytes, layout: this.#layout, messagesAt: this.#messagesAt, maxDepth: MAX_JSON_DEPTH };
  }

  get payload(): Record<string, unknown> {
    if (this.#payload === null) {
      const p = JSON.parse(this.#bytes.toString('utf8')) as Record<string, unknown>;
      // Only a body the scan found extensions in has any to take out: a delete of an absent
      // member is still a runtime call: 2.8k instructions a request for the six
      // (Builtins_DeleteProperty, bench:instructions, gateway-anthropic, issue 17).
      if (this.ext !== NO_EXTENSIONS) for (const f of EXTENSION_NAMES) delete p[f];
      this.#payload = p;
    }
    return this.#payload;
  }
}

/** Conversations this long have their roles checked in the module (below it, a call costs more than the loop). */
const MODULE_ROLES = 8;

/** `messages`: a non-empty array of objects, each with a non-empty string `role`. */
function messagesValid(raw: Buffer, s: ObjectScan): boolean {
  const roles = s.elements;
  if (roles === null || roles.count === 0) return false;
  const spans = roles.spans;
  // A role of one byte or more is not empty decoded either: the scan checked its escapes, and
  // each is one character or two. Where the module wrote the spans (not a JavaScript walk's
  // array), they are checked there: here each typed array read is checked, ~220 instructions a
  // message, 70k of the bench's 200 KB turn (callgrind).
  if (roles.count >= MODULE_ROLES && !Array.isArray(spans)) {
    const m = moduleHolding(raw);
    if (m !== null) return m.plain(4 * roles.from, roles.count) === 1;
  }
  for (let i = roles.from, last = roles.from + 4 * roles.count; i < last; i += 4) {
    const start = spans[i];
    if (start < 0 || raw[start] !== QUOTE || spans[i + 1] - start === 2) return false;
  }
  return true;
}

/** `input`: a string or a non-empty array; `encoding_format`, when given, float or base64. */
function embeddingsValid(raw: Buffer, s: ObjectScan): boolean {
  const input = s.members[INPUT];
  if (input === null) return false;
  const c = raw[input.start];
  if (c === 0x5b) {
    let i = input.start + 1;
    while (raw[i] === 0x20 || raw[i] === 0x0a || raw[i] === 0x0d || raw[i] === 0x09) i++;
    if (raw[i] === 0x5d) return false;
  } else if (c !== QUOTE) return false;
  const format = s.members[ENCODING_FORMAT];
  if (format === null) return true;
  const f = stringAt(raw, format);
  return f === 'float' || f === 'base64';
}
