import { errors } from '../errors/catalog.js';
import { sseErrorEvent } from '../errors/envelope.js';
import { DONE_NOT_HERE, SseScanner, type StreamWatch } from '../lib/sse-scanner.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import type { UpstreamResponse } from '../providers/types.js';
import type { ClientReply } from '../domain/client-reply.js';
import type { StreamGuard } from '../guardrails/stream-guard.js';
import type { InferenceBody } from './inference-body.js';
import { RouteFailure, transportFailure } from './route-failure.js';
import { SseEditor } from './sse-editor.js';
import { estimateUsage, usageEvent } from './usage-estimate.js';

const SSE_TYPE = 'text/event-stream; charset=utf-8';
const NL = 0x0a;

export interface RelayOutcome {
  /** The provider's usage, or the estimate the client was sent; null if neither reached it. */
  usage: TokenUsage | null;
  /** Whether `usage` is the gateway's estimate. */
  estimated: boolean;
  /** Generated text seen, for an estimate when the stream ended without usage. */
  textBytes: number;
  aborted: boolean;
  /** Set when the upstream stream broke after bytes reached the client. */
  failure: RouteFailure | null;
}

/** What the client's stream needs changed; null forwards the provider's bytes untouched. */
export interface StreamEdits {
  /** The model id the client asked for, when the provider's differs. */
  model: string | null;
  /** The client did not ask for usage (stream_options.include_usage): its usage chunk is dropped, and none is estimated for it. */
  dropUsage: boolean;
  /** The request's guardrail on its answer (outputs), checking each event's text before the other edits; null for none. */
  guard?: StreamGuard | null;
}

/**
 * Forwards an upstream SSE stream byte for byte, honouring the client's backpressure, while a
 * watch notes usage and [DONE] (a scanner over the bytes, or a translated stream's translator).
 * Whatever has already arrived goes out in one write, the end included when the upstream has
 * finished, so a short stream costs the client one packet. A stream that breaks, or ends
 * without [DONE], is closed with a final `data: {"error":…}` event and `[DONE]`, so the client
 * never mistakes it for a clean end. A stream that reaches [DONE] without usage gets an
 * estimated usage event just before it, if the client asked for usage. With `edits`, whole
 * lines go through an SseEditor instead (the model the client asked for, no usage chunk it did
 * not ask for).
 */
export function relayStream(reply: ClientReply, res: UpstreamResponse, first: Buffer, headers: Record<string, string>,
  body: InferenceBody, edits: StreamEdits | null = null): Promise<RelayOutcome> {
  return new StreamRelay(reply, res, first, headers, body, edits).run();
}

class StreamRelay {
  readonly #reply: ClientReply;
  readonly #res: UpstreamResponse;
  readonly #first: Buffer;
  readonly #headers: Record<string, string>;
  readonly #body: InferenceBody;
  readonly #watch: StreamWatch;
  #started = false;
  #writable = true;
  /** Trailing bytes kept back because they may begin `data: [DONE]`, before which usage may go. */
  #held: Buffer | null = null;
  #estimate: TokenUsage | null = null;
  #outcome: RelayOutcome | null = null;
  readonly #editor: SseEditor | null;
  readonly #guard: StreamGuard | null;
  readonly #model: string | null;

  constructor(reply: ClientReply, res: UpstreamResponse, first: Buffer, headers: Record<string, string>, body: InferenceBody,
    edits: StreamEdits | null) {
    this.#reply = reply;
    this.#res = res;
    this.#first = first;
    this.#headers = headers;
    this.#body = body;
    this.#watch = res.watch?.() ?? new SseScanner();
    this.#model = edits?.model ?? null;
    this.#guard = edits?.guard ?? null;
    this.#editor = edits === null ? null : new SseEditor({
      model: this.#model === null ? null : JSON.stringify(this.#model),
      dropUsage: edits.dropUsage,
      beforeDone: edits.dropUsage ? null : (atBoundary) => this.#estimateEvent(atBoundary),
    });
  }

  async run(): Promise<RelayOutcome> {
    const reply = this.#reply;
    const res = this.#res;
    this.#watch.push(this.#first);
    if (reply.aborted) return this.#aborted();
    this.#flush(this.#first);
    while (this.#outcome === null) {
      if (!this.#writable) await reply.drained();
      if (reply.aborted) return this.#aborted();
      let chunk: Buffer | null;
      try {
        chunk = await res.next();
      } catch (e) {
        return this.#end(transportFailure(e));
      }
      if (chunk === null) return this.#end(null);
      this.#watch.push(chunk);
      if (reply.aborted) continue;
      this.#flush(chunk);
    }
    return this.#outcome;
  }

  /** One cork: chunk `c` (already scanned), every chunk that has arrived meanwhile, and the end if it is in. */
  #flush(c: Buffer): void {
    this.#writable = this.#reply.batch(() => {
      this.#forward(c);
      for (let n = this.#res.take(); n !== null; n = this.#res.take()) {
        this.#watch.push(n);
        this.#forward(n);
      }
      if (this.#res.finished) this.#outcome = this.#end(null);
    });
  }

  /** Writes the chunk the scanner last saw, putting an estimated usage event before [DONE] when there was no usage. */
  #forward(c: Buffer): void {
    if (this.#editor !== null) {
      this.#write(this.#editor.push(this.#guard === null ? c : this.#guard.push(c)));
      return;
    }
    const s = this.#watch;
    let bytes = c;
    if (this.#held !== null) {
      bytes = Buffer.concat([this.#held, c]);
      this.#held = null;
    }
    if (s.usage !== null || this.#estimate !== null) {
      this.#write(bytes);
      return;
    }
    if (s.doneAt !== DONE_NOT_HERE) {
      // -1: the [DONE] line began in bytes held back, which start `bytes`.
      const cut = s.doneAt < 0 ? 0 : bytes.length - c.length + s.doneAt;
      this.#estimate = estimateUsage('chat', this.#body, s.textBytes);
      const event = usageEvent(this.#first, this.#estimate);
      const atBoundary = cut >= 2 ? bytes[cut - 2] === NL : false;
      this.#write(bytes.subarray(0, cut));
      this.#write(Buffer.from(atBoundary ? event : `\n${event}`));
      this.#write(bytes.subarray(cut));
      return;
    }
    const tail = Math.min(s.doneTail, bytes.length);
    if (tail > 0) {
      this.#held = bytes.subarray(bytes.length - tail);
      bytes = bytes.subarray(0, bytes.length - tail);
    }
    this.#write(bytes);
  }

  /** An edited stream's estimated usage event, put before [DONE] when the provider sent no usage. */
  #estimateEvent(atBoundary: boolean): Buffer | null {
    const s = this.#watch;
    if (s.usage !== null || this.#estimate !== null) return null;
    this.#estimate = estimateUsage('chat', this.#body, s.textBytes);
    const event = usageEvent(this.#first, this.#estimate, this.#model);
    return Buffer.from(atBoundary ? event : `\n${event}`);
  }

  #write(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.#started) this.#reply.streamWrite(bytes);
    else this.#start(bytes);
  }

  #start(bytes: Buffer): boolean {
    this.#started = true;
    return this.#reply.streamStart(200, SSE_TYPE, this.#headers, bytes);
  }

  #aborted(): RelayOutcome {
    this.#res.cancel();
    return this.#result(true, null);
  }

  #end(broken: RouteFailure | null): RelayOutcome {
    if (this.#reply.aborted) return this.#result(true, null);
    const s = this.#watch;
    let failure = broken;
    if (failure === null && !s.done) failure = new RouteFailure('stream_interrupted', 'upstream ended the stream without [DONE]');
    if (failure === null) {
      // An edited stream's last line, if it had no newline (the editor holds unfinished lines).
      const unchecked = this.#guard?.flush();
      if (unchecked !== undefined && unchecked.length > 0) this.#write(this.#editor!.push(unchecked));
      const rest = this.#editor?.flush();
      if (rest !== undefined && rest.length > 0) this.#write(rest);
      this.#reply.streamEnd();
      return this.#result(false, null);
    }
    const interrupted = errors.streamInterrupted(failure.message);
    const event = sseErrorEvent(interrupted);
    // Bytes held back are the start of a [DONE] line that never came (or, edited, an unfinished line): sent as they are.
    const unchecked = this.#guard?.flush();
    const pushed = unchecked !== undefined && unchecked.length > 0 ? this.#editor!.push(unchecked) : null;
    const flushed = this.#editor !== null ? this.#editor.flush() : this.#held;
    const held = pushed === null || pushed.length === 0 ? flushed : flushed === null ? pushed : Buffer.concat([pushed, flushed]);
    this.#held = null;
    const tail = Buffer.from(s.atEventBoundary ? event : `\n\n${event}`);
    const last = held === null || held.length === 0 ? tail : Buffer.concat([held, tail]);
    if (this.#started) {
      this.#reply.streamEnd(last, interrupted.code);
    } else {
      this.#start(last);
      this.#reply.streamEnd(undefined, interrupted.code);
    }
    return this.#result(false, failure.code === 'stream_interrupted' ? failure : new RouteFailure('stream_interrupted', failure.message));
  }

  #result(aborted: boolean, failure: RouteFailure | null): RelayOutcome {
    const s = this.#watch;
    const usage = s.usage ?? this.#estimate;
    return { usage, estimated: usage !== null && usage === this.#estimate, textBytes: s.textBytes, aborted, failure };
  }
}
