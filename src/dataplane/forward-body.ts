import type { Lease } from '../lib/request-slabs.js';

/** One change to the client's bytes: `[from, to)` replaced by `bytes` (empty to cut). */
interface Edit {
  from: number;
  to: number;
  bytes: Buffer;
}

export interface ForwardLayout {
  /** The model value's span, quotes included, and whether it is the plain spelling of `model` (no escapes). */
  modelStart: number;
  modelEnd: number;
  modelPlain: boolean;
  model: string;
  /** The stream_options value's span and its parsed value, when given. */
  streamOptions: { start: number; end: number; value: unknown } | null;
  /** Whether the request streams and already asks for usage (`stream_options.include_usage: true`). */
  stream: boolean;
  usageAsked: boolean;
  /** Offset of the object's opening brace. */
  open: number;
  /** Ranges to cut: the gateway's extension members, each with one separating comma. */
  cuts: readonly number[];
}

const USAGE_MEMBER = Buffer.from('"stream_options":{"include_usage":true},');

/**
 * The client's JSON body as a provider is sent it: the client's own bytes, with only what the
 * gateway must change replaced where it stands (the model id for the route, usage asked for on a
 * stream, the gateway's extension members cut out). The pieces go to the socket as they are, in
 * one writev; nothing the client wrote around them is re-encoded, so a 200 KB conversation
 * costs no decode and no serialisation. Every piece the provider reads was checked by the scan
 * (src/lib/json-scan.ts) or written here.
 */
export class ForwardBody {
  readonly #bytes: Buffer;
  readonly #l: ForwardLayout;
  /** The last answer, for the same route's next request or the next attempt on the same model. */
  #lastModel: string | null = null;
  #lastUsage = false;
  #last: Buffer | Buffer[] | null = null;
  /** The request's hold on the slab its bytes were written in, for a large request the gateway wrote (lib/request-slabs.ts). */
  #lease: Lease | null;

  constructor(bytes: Buffer, layout: ForwardLayout, lease: Lease | null = null) {
    this.#bytes = bytes;
    this.#l = layout;
    this.#lease = lease;
  }

  /**
   * Called once the request has ended (no attempt will read these bytes again): the slab the
   * gateway wrote them in goes back once the writes still carrying it are done, never before.
   */
  release(): void {
    const l = this.#lease;
    if (l === null) return;
    this.#lease = null;
    l.release();
  }

  /** The body's bytes as given, before any edit. */
  get given(): Buffer {
    return this.#bytes;
  }

  /**
   * The body for a route whose model id is `upstreamModel`; with `wantUsage`, a stream that does
   * not ask for usage is made to (the gateway bills from it). The client's buffer itself when
   * nothing changes.
   */
  for(upstreamModel: string, wantUsage: boolean): Buffer | Buffer[] {
    if (this.#last !== null && this.#lastModel === upstreamModel && this.#lastUsage === wantUsage) return this.#last;
    const l = this.#l;
    const edits: Edit[] = [];
    if (!l.modelPlain || upstreamModel !== l.model) edits.push({ from: l.modelStart, to: l.modelEnd, bytes: Buffer.from(JSON.stringify(upstreamModel)) });
    if (wantUsage && l.stream && !l.usageAsked) {
      const so = l.streamOptions;
      if (so === null) edits.push({ from: l.open + 1, to: l.open + 1, bytes: USAGE_MEMBER });
      else {
        const given = so.value !== null && typeof so.value === 'object' && !Array.isArray(so.value) ? so.value : {};
        edits.push({ from: so.start, to: so.end, bytes: Buffer.from(JSON.stringify({ ...given, include_usage: true })) });
      }
    }
    for (let i = 0; i < l.cuts.length; i += 2) edits.push({ from: l.cuts[i], to: l.cuts[i + 1], bytes: EMPTY });
    const out = edits.length === 0 ? this.#bytes : spliced(this.#bytes, edits);
    this.#lastModel = upstreamModel;
    this.#lastUsage = wantUsage;
    this.#last = out;
    return out;
  }
}

const EMPTY = Buffer.alloc(0);

function spliced(bytes: Buffer, edits: Edit[]): Buffer[] {
  edits.sort((a, b) => a.from - b.from);
  const out: Buffer[] = [];
  let at = 0;
  for (const e of edits) {
    if (e.from > at) out.push(bytes.subarray(at, e.from));
    if (e.bytes.length > 0) out.push(e.bytes);
    at = e.to;
  }
  if (at < bytes.length) out.push(bytes.subarray(at));
  return out;
}
