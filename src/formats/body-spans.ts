import { NO_EXTENSIONS, readExtensions, type Extensions } from '../domain/extensions.js';
import type { MemberSpan, ObjectScan, WantedNames } from '../lib/json-scan.js';

// Members' values read from a scanned body's bytes (lib/json-scan.ts gives their spans), for the
// inbound formats whose bodies are forwarded as the client wrote them: chat completions and
// embeddings (scanned-body.ts), Anthropic's Messages (messages-body.ts).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;

// The last plain model name read, as its bytes and its string: clients send the same model turn
// after turn, and comparing its few bytes costs less than a native decode (Buffer#toString: the
// bench's 1 KB chat body read in 10.5k → 9.2k instructions, callgrind). `var`: see json-scan.ts.
var lastModel = '';
var lastModelBytes: Buffer = Buffer.alloc(0);

/** `model`'s value, as stringAt, the last one's string again when its bytes are the same. */
export function modelAt(raw: Buffer, span: MemberSpan): string | null {
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
export function stringAt(raw: Buffer, span: MemberSpan): string | null {
  if (raw[span.start] !== QUOTE) return null;
  if (hasBackslash(raw, span.start, span.end)) return JSON.parse(raw.toString('utf8', span.start, span.end)) as string;
  return raw.toString('utf8', span.start + 1, span.end - 1);
}

/** Spans longer than this are searched natively, shorter ones by a loop (hasBackslash). */
const LOOPED_SPAN = 128;

/**
 * Whether raw[start, end) holds a backslash. A short span (a model, a role) by a loop: Buffer#indexOf
 * on the body would search on past it, through the rest of the body. A long one (a Responses
 * request's instructions, Codex's system prompt) in a view of it: the loop cost ~20 instructions a
 * byte, 39k a request for the bench's 2 KB instructions (callgrind, gateway-responses-stream-agent,
 * stringAt's own), where the view and the native search cost a fixed ~1,500.
 */
export function hasBackslash(raw: Buffer, start: number, end: number): boolean {
  if (end - start > LOOPED_SPAN) return raw.subarray(start, end).indexOf(BACKSLASH) >= 0;
  for (let i = start; i < end; i++) if (raw[i] === BACKSLASH) return true;
  return false;
}

/** `stream`: false when absent, null when not a boolean (the schema's Optional(Boolean) takes no null). */
export function booleanAt(raw: Buffer, span: MemberSpan | null): boolean | null {
  if (span === null) return false;
  const len = span.end - span.start;
  if (len === 4 && raw[span.start] === 0x74) return true;
  if (len === 5 && raw[span.start] === 0x66) return false;
  return null;
}

/** max_tokens and max_completion_tokens: null when absent or null, an integer ≥ 1, or undefined when neither. */
export function tokensAt(raw: Buffer, span: MemberSpan | null): number | null | undefined {
  if (span === null) return null;
  const c = raw[span.start];
  if (c === 0x6e) return null;
  if (c !== 0x2d && (c < 0x30 || c > 0x39)) return undefined;
  const v = Number(raw.toString('latin1', span.start, span.end));
  return Number.isInteger(v) && v >= 1 ? v : undefined;
}

/** `stop_sequences`: an array of strings ([] when absent), or null when it is not. Small: decoded. */
export function stopsAt(raw: Buffer, span: MemberSpan | null): readonly string[] | null {
  if (span === null) return NO_STOPS;
  if (raw[span.start] !== OPEN_BRACKET) return null;
  const v = JSON.parse(raw.toString('utf8', span.start, span.end)) as unknown[];
  return v.every((x) => typeof x === 'string') ? v as string[] : null;
}

export const NO_STOPS: readonly string[] = Object.freeze([]);

/**
 * A number (`integer`: a whole one) when given; JSON's grammar, which the scan checked, starts one
 * with a digit or a minus. A finite one: the schema's Number refuses what JSON.parse reads as
 * Infinity (`1e400`).
 */
export function numberAt(raw: Buffer, span: MemberSpan | null, integer: boolean): boolean {
  if (span === null) return true;
  return !Number.isNaN(numberValue(raw, span, integer));
}

/** The value of a number member as the schema takes it (see numberAt); NaN when it does not. */
export function numberValue(raw: Buffer, span: MemberSpan, integer: boolean): number {
  const c = raw[span.start];
  if (c !== 0x2d && (c < 0x30 || c > 0x39)) return NaN;
  const v = Number(raw.toString('latin1', span.start, span.end));
  return (integer ? Number.isInteger(v) : Number.isFinite(v)) ? v : NaN;
}

/**
 * The gateway's extension members (read as the full parse reads them: readExtensions' errors are
 * its own) and the byte ranges that cut them out, for a scan whose wanted names list them from
 * `first` on.
 */
export function extensionsAt(raw: Buffer, s: ObjectScan, wanted: WantedNames, first: number): { ext: Extensions; cuts: number[] } {
  const m = s.members;
  let any = false;
  for (let i = first; i < m.length; i++) if (m[i] !== null) any = true;
  if (!any) return NO_EXTENSIONS_CUT;
  const given: Record<string, unknown> = {};
  for (let i = first; i < m.length; i++) {
    const span = m[i];
    if (span !== null) given[wanted.names[i]] = JSON.parse(raw.toString('utf8', span.start, span.end));
  }
  return { ext: readExtensions(given), cuts: extensionCuts(s, first) };
}

const NO_EXTENSIONS_CUT = Object.freeze({ ext: NO_EXTENSIONS, cuts: Object.freeze([]) as unknown as number[] });

/**
 * Byte ranges that cut the extension members out with their separators: a member followed by
 * another goes with everything up to that one's key; members after the last kept one go from the
 * end of its value, so no comma is left dangling.
 */
function extensionCuts(s: ObjectScan, first: number): number[] {
  const layout = s.layout;
  const count = layout.length / 2;
  const isExt = (i: number): boolean => {
    for (let w = first; w < s.members.length; w++) if (s.members[w]?.key === layout[2 * i]) return true;
    return false;
  };
  let lastKept = -1;
  for (let i = 0; i < count; i++) if (!isExt(i)) lastKept = i;
  const cuts: number[] = [];
  for (let i = 0; i < lastKept; i++) if (isExt(i)) cuts.push(layout[2 * i], layout[2 * (i + 1)]);
  if (lastKept >= 0 && lastKept < count - 1) cuts.push(layout[2 * lastKept + 1], layout[2 * (count - 1) + 1]);
  return cuts;
}
