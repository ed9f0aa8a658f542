import { MAX_JSON_DEPTH } from '../domain/json-body.js';
import { scanObject, WantedNames, type MemberSpan, type ObjectScan } from '../lib/json-scan.js';
import type { TokenEndpoint } from '../providers/types.js';
import { EXTENSION_NAMES, readExtensions, type Extensions } from '../domain/extensions.js';
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
const BACKSLASH = 0x5c;

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

  let ext: Extensions = NO_EXTENSIONS;
  let cuts: number[] = NO_CUTS;
  if (hasExtension(m)) {
    const given: Record<string, unknown> = {};
    for (let i = FIRST_EXTENSION; i < m.length; i++) {
      const span = m[i];
      if (span !== null) given[WANTED.names[i]] = JSON.parse(raw.toString('utf8', span.start, span.end));
    }
    // The schema has passed, so its errors are the ones the full parse would give.
    ext = readExtensions(given);
    cuts = extensionCuts(s);
  }
  const so = m[STREAM_OPTIONS];
  const options = so === null ? undefined : JSON.parse(raw.toString('utf8', so.start, so.end)) as unknown;
  const usageAsked = typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true;
  const forward = new ForwardBody(raw, {
    modelStart: modelSpan!.start, modelEnd: modelSpan!.end, modelPlain: !hasBackslash(raw, modelSpan!.start, modelSpan!.end),
    model, streamOptions: so === null ? null : { start: so.start, end: so.end, value: options },
    stream: stream === true, usageAsked, open: s.open, cuts,
  });
  return new ScannedBody(raw, model, stream === true, maxCompletion ?? maxTokens ?? null, ext, forward, usageAsked);
}

const NO_EXTENSIONS: Extensions = Object.freeze({ optimize: null, provider: null, dataPolicy: null, upstreamKey: null, cache: null, guardrails: null }) as Extensions;
const NO_CUTS: number[] = [];

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

  constructor(bytes: Buffer, model: string, stream: boolean, maxTokens: number | null, ext: Extensions,
    raw: ForwardBody, usageAsked: boolean) {
    this.#bytes = bytes;
    this.model = model;
    this.stream = stream;
    this.maxTokens = maxTokens;
    this.bytes = bytes.length;
    this.ext = ext;
    this.raw = raw;
    this.usageAsked = usageAsked;
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

function hasExtension(m: readonly (MemberSpan | null)[]): boolean {
  for (let i = FIRST_EXTENSION; i < m.length; i++) if (m[i] !== null) return true;
  return false;
}

// The last plain model name read, as its bytes and its string: clients send the same model turn
// after turn, and comparing its few bytes costs less than a native decode (Buffer#toString: the
// bench's 1 KB chat body read in 10.5k → 9.2k instructions, callgrind). `var`: see json-scan.ts.
var lastModel = '';
var lastModelBytes: Buffer = Buffer.alloc(0);

/** `model`'s value, as stringAt, the last one's string again when its bytes are the same. */
function modelAt(raw: Buffer, span: MemberSpan): string | null {
  const from = span.start + 1;
  const to = span.end - 1;
  const last = lastModelBytes;
  if (to - from === last.length && raw[span.start] === QUOTE) {
    let i = 0;
    while (i < last.length && raw[from + i] === last[i]) i++;
    if (i === last.length) return lastModel;
  }
  const model = stringAt(raw, span);
  if (model !== null && !hasBackslash(raw, span.start, span.end)) {
    lastModel = model;
    lastModelBytes = Buffer.copyBytesFrom(raw, from, to - from);
  }
  return model;
}

/** A string member's value, or null when it is absent or not a string. */
function stringAt(raw: Buffer, span: MemberSpan): string | null {
  if (raw[span.start] !== QUOTE) return null;
  if (hasBackslash(raw, span.start, span.end)) return JSON.parse(raw.toString('utf8', span.start, span.end)) as string;
  return raw.toString('utf8', span.start + 1, span.end - 1);
}

// A loop over the span: Buffer#indexOf would search on past it, through the rest of the body.
function hasBackslash(raw: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (raw[i] === BACKSLASH) return true;
  return false;
}

/** `stream`: false when absent, null when not a boolean (the schema's Optional(Boolean) takes no null). */
function booleanAt(raw: Buffer, span: MemberSpan | null): boolean | null {
  if (span === null) return false;
  const len = span.end - span.start;
  if (len === 4 && raw[span.start] === 0x74) return true;
  if (len === 5 && raw[span.start] === 0x66) return false;
  return null;
}

/** max_tokens and max_completion_tokens: null when absent or null, an integer ≥ 1, or undefined when neither. */
function tokensAt(raw: Buffer, span: MemberSpan | null): number | null | undefined {
  if (span === null) return null;
  const c = raw[span.start];
  if (c === 0x6e) return null;
  if (c !== 0x2d && (c < 0x30 || c > 0x39)) return undefined;
  const v = Number(raw.toString('latin1', span.start, span.end));
  return Number.isInteger(v) && v >= 1 ? v : undefined;
}

/** `messages`: a non-empty array of objects, each with a non-empty string `role`. */
function messagesValid(raw: Buffer, s: ObjectScan): boolean {
  const roles = s.elements;
  if (roles === null || roles.count === 0) return false;
  const spans = roles.spans;
  for (let i = roles.from, last = roles.from + 4 * roles.count; i < last; i += 4) {
    const start = spans[i];
    if (start < 0 || raw[start] !== QUOTE) return false;
    const end = spans[i + 1];
    // A plain role is judged by its bytes; only an escaped one is decoded ("\u0000" is one character).
    if (end - start === 2 || (hasBackslash(raw, start, end) && (JSON.parse(raw.toString('utf8', start, end)) as string).length === 0)) return false;
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

/**
 * Byte ranges that cut the extension members out with their separators: a member followed by
 * another goes with everything up to that one's key; members after the last kept one go from the
 * end of its value, so no comma is left dangling.
 */
function extensionCuts(s: ObjectScan): number[] {
  const layout = s.layout;
  const count = layout.length / 2;
  const isExt = (i: number): boolean => {
    for (let w = FIRST_EXTENSION; w < s.members.length; w++) if (s.members[w]?.key === layout[2 * i]) return true;
    return false;
  };
  let lastKept = -1;
  for (let i = 0; i < count; i++) if (!isExt(i)) lastKept = i;
  const cuts: number[] = [];
  for (let i = 0; i < lastKept; i++) if (isExt(i)) cuts.push(layout[2 * i], layout[2 * (i + 1)]);
  if (lastKept >= 0 && lastKept < count - 1) cuts.push(layout[2 * lastKept + 1], layout[2 * (count - 1) + 1]);
  return cuts;
}
