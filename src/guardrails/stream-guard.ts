import { errors } from '../errors/catalog.js';
import { sseErrorEvent } from '../errors/envelope.js';
import { isGatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { Guard } from './guard.js';

const NL = 0x0a;
const DATA = 'data: ';
const DONE = 'data: [DONE]';
/**
 * Characters of generated text held back at the end of what has arrived, so that a match split
 * across chunks is whole when it is checked: longer than any identifier the detectors find with
 * its separators (a grouped 19-digit card is 25), plus their look-around.
 */
const HOLD = 48;
/** A run without white space (a key, an email) is held whole, up to this long. */
const MAX_RUN = 512;
/** A PEM private key whose end has not arrived is held, up to this long. */
const MAX_PEM = 16_384;
/**
 * Longest unfinished SSE line held back. A line that cannot be checked must not go out
 * unchecked: past this the stream ends with the stream_interrupted error event.
 */
const MAX_LINE = 1024 * 1024;

type Obj = Record<string, unknown>;

/**
 * A chat completion stream checked by the request's guardrail on its way to the client. Each
 * `data:` event is read, its choices' `delta.content` appended to that choice's carry-over, and
 * the carry-over's safe prefix (all but its last characters, which a match may still be
 * growing into) redacted and sent in the event's place; the rest waits for the next event, the
 * choice's finish, or [DONE]. A blocking detector's match ends the stream with the
 * guardrail_blocked error event and [DONE]; what the provider sends after it is dropped.
 * Costs a JSON parse and serialisation per event, paid only by requests that ask for it.
 */
export class StreamGuard {
  readonly #guard: Guard;
  readonly #carry = new Map<number, string>();
  /** Tool calls' arguments still held, by choice and then by the tool call's index. */
  readonly #toolCarry = new Map<number, Map<number, string>>();
  /** The bytes of an unfinished line: kept as bytes, as a chunk may end inside a character. */
  #line: Buffer = EMPTY;
  /** The last event read, whose id and model a carry-over flushed before [DONE] is sent with. */
  #last: Obj | null = null;
  #stopped = false;

  constructor(guard: Guard) {
    this.#guard = guard;
  }

  /** The bytes to forward for `chunk`: its whole lines, checked, after any held back before. */
  push(chunk: Buffer): Buffer {
    if (this.#stopped) return EMPTY;
    const lastNl = chunk.lastIndexOf(NL);
    if (lastNl < 0) {
      this.#line = this.#line.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#line, chunk]);
      return this.#line.length <= MAX_LINE ? EMPTY : this.#stop(errors.streamInterrupted('an event too long for the guardrail to check'), '');
    }
    const whole = this.#line.length === 0 ? chunk.subarray(0, lastNl + 1) : Buffer.concat([this.#line, chunk.subarray(0, lastNl + 1)]);
    this.#line = lastNl === chunk.length - 1 ? EMPTY : Buffer.from(chunk.subarray(lastNl + 1));
    const lines = whole.toString('utf8').split('\n');
    let out = '';
    try {
      for (let i = 0; i < lines.length - 1; i++) out += this.#checked(lines[i]) + '\n';
    } catch (e) {
      if (!isGatewayError(e) || e.code !== 'guardrail_blocked') throw e;
      return this.#stop(e, out);
    }
    return Buffer.from(out);
  }

  /** An unfinished last line (no event: nothing to check); empty once the stream was stopped. */
  flush(): Buffer {
    const rest = this.#stopped ? EMPTY : this.#line;
    this.#line = EMPTY;
    return rest;
  }

  /** Ends the client's stream after `out` with `e`'s error event and [DONE]; what the provider sends next is dropped. */
  #stop(e: GatewayError, out: string): Buffer {
    this.#stopped = true;
    this.#line = EMPTY;
    return Buffer.from(out + (out.length === 0 || out.endsWith('\n\n') ? '' : '\n') + sseErrorEvent(e));
  }

  #checked(line: string): string {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (l === DONE) return `${this.#flushAll()}${line}`;
    if (!l.startsWith(DATA)) return line;
    let event: Obj;
    try {
      event = JSON.parse(l.slice(DATA.length)) as Obj;
    } catch {
      return line;
    }
    const choices = event.choices;
    if (!Array.isArray(choices) || choices.length === 0) return line;
    this.#last = event;
    for (const c of choices as Obj[]) {
      const index = typeof c.index === 'number' ? c.index : 0;
      const delta = c.delta as Obj | undefined;
      const finished = c.finish_reason != null;
      if (delta != null) this.#checkToolCalls(index, delta, finished);
      const piece = delta != null && typeof delta.content === 'string' ? delta.content : '';
      const held = (this.#carry.get(index) ?? '') + piece;
      const cut = finished ? held.length : this.#guard.cutBefore(held, safeEnd(held));
      if (delta == null || (piece === '' && cut === 0)) {
        if (held !== '') this.#carry.set(index, held);
        continue;
      }
      delta.content = this.#guard.text(held.slice(0, cut), 'answer');
      this.#carry.set(index, held.slice(cut));
    }
    return DATA + JSON.stringify(event);
  }

  /**
   * A delta's tool calls: each call's `function.arguments` fragments are held and checked as a
   * choice's text is (the arguments are JSON text, and a marker holds no quote or backslash), and
   * what a call still holds when its choice finishes goes out in that event, as one more fragment.
   */
  #checkToolCalls(choice: number, delta: Obj, finished: boolean): void {
    let held = this.#toolCarry.get(choice);
    const calls = Array.isArray(delta.tool_calls) ? delta.tool_calls as Obj[] : null;
    if (calls === null && (!finished || held === undefined)) return;
    if (held === undefined) this.#toolCarry.set(choice, held = new Map());
    const seen = new Set<number>();
    for (const call of calls ?? []) {
      const fn = call?.function as Obj | undefined;
      if (fn == null || typeof fn.arguments !== 'string') continue;
      const at = typeof call.index === 'number' ? call.index : 0;
      seen.add(at);
      const text = (held.get(at) ?? '') + fn.arguments;
      const cut = finished ? text.length : this.#guard.cutBefore(text, safeEnd(text));
      fn.arguments = this.#guard.text(text.slice(0, cut), 'answer');
      held.set(at, text.slice(cut));
    }
    if (!finished) return;
    const rest = this.#heldToolCalls(held, seen);
    if (rest.length > 0) delta.tool_calls = [...(calls ?? []), ...rest];
    this.#toolCarry.delete(choice);
  }

  /** Fragments carrying a choice's held arguments, checked (the calls in `skip` already went out whole). */
  #heldToolCalls(held: Map<number, string>, skip: ReadonlySet<number>): Obj[] {
    const out: Obj[] = [];
    for (const [index, text] of held) if (text !== '' && !skip.has(index)) out.push({ index, function: { arguments: this.#guard.text(text, 'answer') } });
    return out;
  }

  /** Held text and arguments of choices that never finished, as one event before [DONE]. */
  #flushAll(): string {
    const last = this.#last;
    const choices: Obj[] = [];
    const indexes = new Set([...this.#carry.keys(), ...this.#toolCarry.keys()]);
    for (const index of indexes) {
      const held = this.#carry.get(index) ?? '';
      const tools = this.#heldToolCalls(this.#toolCarry.get(index) ?? new Map(), new Set());
      if (held === '' && tools.length === 0) continue;
      const delta: Obj = held === '' ? {} : { content: this.#guard.text(held, 'answer') };
      if (tools.length > 0) delta.tool_calls = tools;
      choices.push({ index, delta, finish_reason: null });
    }
    this.#carry.clear();
    this.#toolCarry.clear();
    if (choices.length === 0 || last === null) return '';
    return `${DATA}${JSON.stringify({ id: last.id, object: last.object, created: last.created, model: last.model, choices })}\n\n`;
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Where the part of `held` that is safe to check and send ends: before its last HOLD
 * characters, moved back to the start of a run without white space that crosses it (a key or
 * an email still arriving) and to an unfinished PEM key's armour.
 */
export function safeEnd(held: string): number {
  let cut = held.length - HOLD;
  if (cut <= 0) return 0;
  const floor = Math.max(0, cut - MAX_RUN);
  while (cut > floor && !isSpace(held.charCodeAt(cut - 1))) cut--;
  if (cut === floor && floor > 0) cut = held.length - HOLD;
  const pem = held.lastIndexOf('-----BEGIN', cut);
  if (pem >= 0 && held.indexOf('-----END', pem) < 0 && held.length - pem <= MAX_PEM) cut = pem;
  return cut;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === NL || c === 0x09 || c === 0x0d;
}
