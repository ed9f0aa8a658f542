import { estimatePromptTokens, tokensForBytes } from '../billing/token-estimate.js';
import { MAX_JSON_DEPTH } from '../domain/json-body.js';
import { EXTENSION_NAMES, type Extensions } from '../domain/extensions.js';
import { betaHeaders, messagesRequest, readMessages, translateMessages, type MessagesRequest } from '../formats/messages/request.js';
import { decodeWithLiterals, LITERAL_BYTES, LITERALS_FROM, type LiteralTable } from '../lib/json-literals.js';
import { scanElements, scanObject, WantedNames, type ElementSpans, type MemberSpan } from '../lib/json-scan.js';
import type { ClientBytes, NativeFormat } from '../providers/types.js';
import { booleanAt, extensionsAt, hasBackslash, modelAt, NO_STOPS, numberAt, stopsAt, tokensAt } from '../formats/body-spans.js';
import { ForwardBody } from './forward-body.js';
import { writtenMessagesChat } from '../formats/messages/request-bytes.js';
import { writtenForward } from './written-body.js';
import type { InferenceBody, NativeRequest } from './inference-body.js';

// A Messages API body (POST /v1/messages, Claude Code's) as the data plane takes it. Nearly every
// body is read by the scan, as scanned-body.ts reads a chat body: what routing, limits and billing
// need comes from the members' bytes, every check of MessagesBodySchema is made on them, and a
// route whose provider speaks Messages itself (Anthropic) is sent the client's own bytes, with the
// model id and the gateway's extensions edited in place. Before, every such request was parsed
// and written again whole: an agent's 200 KB turn cost 3.5x the chat pass-through's CPU (npm run
// bench, gateway-messages-native, docs/benchmarks.md). What the scan cannot prove is parsed whole
// (readMessages), which refuses what it always refused. Either way the translation to chat
// completions, for a route of another provider, a guardrail or an estimate, is made only when
// something asks for it.

const MODEL = 0;
const MAX_TOKENS = 1;
const MESSAGES = 2;
const SYSTEM = 3;
const STREAM = 4;
const STOP_SEQUENCES = 5;
const TEMPERATURE = 6;
const TOP_P = 7;
const TOP_K = 8;
const METADATA = 9;
const TOOLS = 10;
const TOOL_CHOICE = 11;
const FIRST_EXTENSION = 12;
const WANTED = new WantedNames(['model', 'max_tokens', 'messages', 'system', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k',
  'metadata', 'tools', 'tool_choice', ...EXTENSION_NAMES]);
const ROLE = Buffer.from('role');
const CONTENT = Buffer.from('content');
const TYPE = Buffer.from('type');
const NAME = Buffer.from('name');
// The blocks' `type` is checked on the scan's first walk of the messages (one walk of the bulk, not two: the
// agent turn's native path 1.3x → see docs/benchmarks.md).
const SCAN = { wanted: WANTED, elements: MESSAGES, elementKeys: [ROLE, CONTENT], nestedKey: TYPE, maxDepth: MAX_JSON_DEPTH };
const ROLES = [Buffer.from('"user"'), Buffer.from('"assistant"'), Buffer.from('"system"')];

const QUOTE = 0x22;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;

/** A Messages request's InferenceBody, and the stop sequences the answer's stop_reason is told by. */
export interface MessagesBody extends InferenceBody {
  readonly stops: readonly string[];
  /** The prompt's tokens as a translated stream's message_start estimates them. */
  inputEstimate(): number;
}

/**
 * `beta`: the client's anthropic-beta header ('' when absent). `mayBeNative`: whether the model
 * could be served by a provider that takes Messages itself; when the body names its model first
 * (Claude Code's does) and it cannot, the scan is skipped: only such a route is sent the client's
 * bytes, and the translation needs the full parse anyway (the scan cost a translated 1 KB request
 * 15–30k instructions more, bench:instructions, gateway-messages-stream). Throws 400 for a body the
 * schema refuses.
 */
export function messagesBody(raw: Buffer, beta: string, mayBeNative: (model: string) => boolean = ALWAYS): MessagesBody {
  const named = leadingModel(raw);
  const translated = named !== null && !mayBeNative(named);
  const scanned = translated ? null : scannedMessages(raw, beta);
  if (scanned !== null) return scanned;
  // Sure to be translated, a request has its chat request written from the client's bytes where
  // it is of the usual shapes (formats/messages/request-bytes.ts), a small one too once the members
  // around its conversation are read from their spans (see docs/benchmarks.md); else an agent's
  // turn is decoded with the long strings of its conversation left as the client's literals, which
  // the translation moves.
  if (translated) {
    const small = raw.length < LITERALS_FROM;
    const w = writtenMessagesChat(raw, small);
    if (w !== null) {
      const b = w.body;
      const model = b.model as string;
      const stream = b.stream === true;
      return new LazyMessagesBody(raw, beta, null, model, stream, b.max_tokens as number, w.ext, stopsOf(b), betaHeaders(beta), null,
        writtenForward(w, model, stream), small ? w.estimate ?? ESTIMATE_FROM_WRITTEN : ESTIMATE_FROM_SIZE);
    }
  }
  const decoded = translated && raw.length >= LITERALS_FROM ? decodeWithLiterals(raw, CONVERSATION, LITERAL_BYTES, MAX_JSON_DEPTH) : null;
  const r = decoded === null ? readMessages(raw, false, beta) : messagesRequest(decoded.body, false, beta, decoded.literals);
  const b = r.body;
  return new LazyMessagesBody(raw, beta, r, b.model as string, b.stream === true, b.max_tokens as number, r.ext, stopsOf(b), r.headers, null);
}

/** How a written request's message_start estimate is made when it was not read off the spans: see inputEstimate. */
const ESTIMATE_FROM_WRITTEN = -1;
const ESTIMATE_FROM_SIZE = -2;

function stopsOf(b: Record<string, unknown>): readonly string[] {
  return Array.isArray(b.stop_sequences) ? b.stop_sequences as string[] : NO_STOPS;
}

const ALWAYS = (): boolean => true;

const CONVERSATION: ReadonlySet<string> = new Set(['messages', 'system']);

const LEADING_MODEL = Buffer.from('{"model":"');

/**
 * The model a body names in its first member, as `{"model":"…"` with nothing to unescape; null
 * otherwise. A hint only: a body that names it twice is read by the full parse, which takes the last.
 */
function leadingModel(raw: Buffer): string | null {
  if (raw.length < LEADING_MODEL.length + 1) return null;
  for (let j = 0; j < LEADING_MODEL.length; j++) if (raw[j] !== LEADING_MODEL[j]) return null;
  const from = LEADING_MODEL.length;
  const to = Math.min(raw.length, from + 256);
  for (let i = from; i < to; i++) {
    const c = raw[i];
    if (c === QUOTE) return raw.toString('latin1', from, i);
    if (c === 0x5c || c >= 0x80) return null;
  }
  return null;
}

/**
 * The scanned form of a Messages body, or null when the scan cannot prove it valid against
 * MessagesBodySchema: the full parse then refuses it with its own message.
 */
export function scannedMessages(raw: Buffer, beta: string): MessagesBody | null {
  const s = scanObject(raw, SCAN);
  if (s === null) return null;
  const m = s.members;
  const modelSpan = m[MODEL];
  const model = modelSpan === null ? null : modelAt(raw, modelSpan);
  if (model === null || model.length === 0) return null;
  const maxTokens = m[MAX_TOKENS] === null ? undefined : tokensAt(raw, m[MAX_TOKENS]);
  if (typeof maxTokens !== 'number') return null;
  const stream = booleanAt(raw, m[STREAM]);
  if (stream === null) return null;
  if (!messagesValid(raw, s.elements)) return null;
  const system = m[SYSTEM];
  if (system !== null && raw[system.start] !== QUOTE && !blocksValid(raw, system, 2)) return null;
  const stops = stopsAt(raw, m[STOP_SEQUENCES]);
  if (stops === null) return null;
  if (!numberAt(raw, m[TEMPERATURE], false) || !numberAt(raw, m[TOP_P], false) || !numberAt(raw, m[TOP_K], true)) return null;
  if (!metadataValid(raw, m[METADATA]) || !toolsValid(raw, m[TOOLS]) || !toolChoiceValid(raw, m[TOOL_CHOICE])) return null;
  const headers = betaHeaders(beta);
  const { ext, cuts } = extensionsAt(raw, s, WANTED, FIRST_EXTENSION);
  // Nothing to add to a Messages body: usage comes with every Anthropic answer.
  const forward = new ForwardBody(raw, {
    modelStart: modelSpan!.start, modelEnd: modelSpan!.end, modelPlain: !hasBackslash(raw, modelSpan!.start, modelSpan!.end),
    model, streamOptions: null, stream: false, usageAsked: true, open: s.open, cuts,
  });
  return new LazyMessagesBody(raw, beta, null, model, stream, maxTokens, ext, stops, headers, forward);
}


/**
 * The body as the data plane takes it. `payload` (the chat body every adapter takes) is
 * translated on first use: a route that is not Anthropic's, a guardrail, a usage estimate. A
 * translation it cannot make (a content block chat has no place for) is refused then, as 400,
 * for that route; an Anthropic route never needs it. A scanned body is decoded only when asked
 * for as well (a prompt-cache marker or a guardrail on a native route).
 */
class LazyMessagesBody implements MessagesBody {
  /** The chat request written from the client's bytes, for an OpenAI-compatible route; null when it is translated as objects. */
  readonly raw: ForwardBody | null;
  readonly bytes: number;
  /** The chat body asks for usage on a stream (translateMessages does), so the data plane never drops it. */
  readonly usageAsked: boolean;
  readonly native: NativeRequest;
  readonly #body: Buffer;
  readonly #beta: string;
  #decoded: MessagesRequest | null;
  #payload: Record<string, unknown> | null = null;
  #literal: { payload: Record<string, unknown>; literals: LiteralTable } | null = null;
  /** A written request's prompt estimate (message_start's), or how it is to be made (ESTIMATE_FROM_*). */
  readonly #estimate: number;

  constructor(body: Buffer, beta: string, decoded: MessagesRequest | null, readonly model: string, readonly stream: boolean,
    readonly maxTokens: number, readonly ext: Extensions, readonly stops: readonly string[], headers: Record<string, string>,
    forward: ClientBytes | null, written: ForwardBody | null = null, estimate = ESTIMATE_FROM_WRITTEN) {
    this.raw = written;
    this.#estimate = estimate;
    this.#body = body;
    this.#beta = beta;
    this.#decoded = decoded;
    this.bytes = body.length;
    this.usageAsked = stream;
    this.native = new LazyNative(this, headers, forward);
  }

  inputEstimate(): number {
    const written = this.raw;
    const estimate = this.#estimate;
    if (written === null || this.#payload !== null) return estimatePromptTokens('chat', this.payload);
    // Written from the client's bytes, the request is not translated again for this alone. A
    // small one has the figure the translation gives ("hello" 8, where its size gave 38): read
    // off the spans when its messages are strings, else from its written chat request parsed
    // (the translation's JSON). Parsed for every small stream, gateway-messages-stream counted
    // 239.7k instructions on the main thread, read off the spans 211.6k, translated as objects
    // 223.1k (bench:instructions, paired; docs/benchmarks.md).
    // An agent's turn has its size stand in for its text (12% over on the bench's 200 KB turn):
    // estimated from the translation, a streamed turn was parsed and translated a second time for
    // message_start's figure, which message_delta's real count replaces:
    // gateway-messages-stream-agent 8,027.8k → 2,858.5k instructions on the main thread
    // (bench:instructions, paired; docs/benchmarks.md).
    if (estimate === ESTIMATE_FROM_SIZE) return tokensForBytes(written.given.length);
    if (estimate === ESTIMATE_FROM_WRITTEN) return estimatePromptTokens('chat', JSON.parse(written.given.toString('utf8')) as Record<string, unknown>);
    return estimate;
  }

  get payload(): Record<string, unknown> {
    if (this.#payload === null) {
      const literals = this.decoded().literals;
      this.#payload = literals === null ? translateMessages(this.decoded()) : literals.expand(this.literal!.payload);
    }
    return this.#payload;
  }

  /** The translation with placeholders for the client's literals, for an adapter that copies them; null when the body has none. */
  get literal(): { payload: Record<string, unknown>; literals: LiteralTable } | null {
    const literals = this.decoded().literals;
    if (literals === null) return null;
    return this.#literal ??= { payload: translateMessages(this.decoded()), literals };
  }

  /** The body parsed whole, once. */
  decoded(): MessagesRequest {
    return this.#decoded ??= readMessages(this.#body, false, this.#beta);
  }
}

/** The native route's request: the client's bytes to forward (when scanned), its decoded body on demand. */
class LazyNative implements NativeRequest {
  readonly format: NativeFormat = 'anthropic-messages';
  readonly #of: LazyMessagesBody;

  constructor(of: LazyMessagesBody, readonly headers: Record<string, string>, readonly forward: ClientBytes | null) {
    this.#of = of;
  }

  get payload(): Record<string, unknown> {
    const d = this.#of.decoded();
    return d.literals === null ? d.body : d.literals.expand(d.body);
  }
}

/** A non-empty array of objects, each with a role of user, assistant or system and content that is a string or an array of blocks. */
function messagesValid(raw: Buffer, e: ElementSpans | null): boolean {
  if (e === null || e.count === 0) return false;
  const spans = e.spans;
  // The spans may be the scanner's memory, which the scans of the block arrays write over: the
  // arrays' spans are kept first, then scanned.
  const arrays: number[] = [];
  for (let i = e.from, last = e.from + 4 * e.count; i < last; i += 4) {
    const roleStart = spans[i];
    if (roleStart < 0 || !isRole(raw, roleStart, spans[i + 1])) return false;
    const contentStart = spans[i + 2];
    if (contentStart < 0) return false;
    const c = raw[contentStart];
    if (c === QUOTE) continue;
    if (c !== OPEN_BRACKET) return false;
    if (!e.nestedChecked) arrays.push(contentStart, spans[i + 3]);
  }
  for (let i = 0; i < arrays.length; i += 2) if (!blocksValid(raw, { key: -1, start: arrays[i], end: arrays[i + 1] }, 4)) return false;
  return true;
}

/** The role's bytes, exactly: an escaped spelling is left to the full parse. */
function isRole(raw: Buffer, start: number, end: number): boolean {
  for (const r of ROLES) {
    if (end - start !== r.length) continue;
    let j = 0;
    while (j < r.length && raw[start + j] === r[j]) j++;
    if (j === r.length) return true;
  }
  return false;
}

/** An array (at nesting `depth`) of objects, each with a non-empty string `type`. */
function blocksValid(raw: Buffer, span: MemberSpan, depth: number): boolean {
  if (raw[span.start] !== OPEN_BRACKET) return false;
  const types = scanElements(raw, span.start, [TYPE], depth, MAX_JSON_DEPTH);
  if (types === null) return false;
  const spans = types.spans;
  for (let i = types.from, last = types.from + 4 * types.count; i < last; i += 4) {
    if (!nonEmptyString(raw, spans[i], spans[i + 1])) return false;
  }
  return true;
}

/** An array of objects, each with a non-empty string `name` and, when given, a string `type`. */
function toolsValid(raw: Buffer, span: MemberSpan | null): boolean {
  if (span === null) return true;
  if (raw[span.start] !== OPEN_BRACKET) return false;
  const tools = scanElements(raw, span.start, [NAME, TYPE], 2, MAX_JSON_DEPTH);
  if (tools === null) return false;
  const spans = tools.spans;
  for (let i = tools.from, last = tools.from + 4 * tools.count; i < last; i += 4) {
    if (!nonEmptyString(raw, spans[i], spans[i + 1])) return false;
    if (spans[i + 2] >= 0 && raw[spans[i + 2]] !== QUOTE) return false;
  }
  // A tool that is not an object has no name: refused above.
  return true;
}

/** A string value of at least one character ("\u0000" is one; an escape always decodes to some). */
function nonEmptyString(raw: Buffer, start: number, end: number): boolean {
  return start >= 0 && raw[start] === QUOTE && end - start > 2;
}

/** `metadata`: an object whose user_id, when given, is a string or null. */
function metadataValid(raw: Buffer, span: MemberSpan | null): boolean {
  if (span === null) return true;
  if (raw[span.start] !== OPEN_BRACE) return false;
  const v = JSON.parse(raw.toString('utf8', span.start, span.end)) as { user_id?: unknown };
  return v.user_id === undefined || v.user_id === null || typeof v.user_id === 'string';
}

/** `tool_choice`: an object with a string type. */
function toolChoiceValid(raw: Buffer, span: MemberSpan | null): boolean {
  if (span === null) return true;
  if (raw[span.start] !== OPEN_BRACE) return false;
  return typeof (JSON.parse(raw.toString('utf8', span.start, span.end)) as { type?: unknown }).type === 'string';
}
