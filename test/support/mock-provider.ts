// A real OpenAI-compatible upstream on 127.0.0.1 for tests and benchmarks. It speaks plain
// node:http so the gateway's client sees genuine sockets: slow bodies, cut streams and resets
// behave exactly as they would against a remote provider.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { constants as h2constants, createSecureServer, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';

export interface MockUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Sent as OpenAI does, in `prompt_tokens_details` (with `audio_tokens: 0`), a part of prompt_tokens. */
  cached_tokens?: number;
  /** Sent in `prompt_tokens_details` as OpenRouter names it. */
  cache_write_tokens?: number;
  /** Sent in `completion_tokens_details` (with OpenAI's other zero counters), a part of completion_tokens. */
  reasoning_tokens?: number;
}

/** The JSON of a usage block as OpenAI writes it: the details objects only when a part is given. */
function usageJson(u: MockUsage): string {
  let s = `{"prompt_tokens":${u.prompt_tokens},"completion_tokens":${u.completion_tokens},"total_tokens":${u.prompt_tokens + u.completion_tokens}`;
  if (u.cached_tokens !== undefined || u.cache_write_tokens !== undefined) {
    s += `,"prompt_tokens_details":{"cached_tokens":${u.cached_tokens ?? 0},"audio_tokens":0`
      + (u.cache_write_tokens === undefined ? '' : `,"cache_write_tokens":${u.cache_write_tokens}`) + '}';
  }
  if (u.reasoning_tokens !== undefined) {
    s += `,"completion_tokens_details":{"reasoning_tokens":${u.reasoning_tokens},"audio_tokens":0,"accepted_prediction_tokens":0,`
      + '"rejected_prediction_tokens":0}';
  }
  return s + '}';
}

export type Behavior =
  /** `usage: null` answers without a usage block, as some self-hosted servers do. */
  | { kind: 'ok'; delayMs?: number; content?: string; usage?: MockUsage | null }
  /** A 200 answer written exactly as given, one write per part, `intervalMs` apart (default 10);
   * with `hold` the answer is then left open instead of ended. */
  | { kind: 'parts'; parts: string[]; intervalMs?: number; contentType?: string; hold?: boolean }
  /** `usage` replaces the counts of the final usage chunk (when one is sent). */
  | { kind: 'stream'; chunks?: number; intervalMs?: number; includeUsage?: 'auto' | 'always' | 'never'; usage?: MockUsage }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** An error answer that echoes the credential header it received, as a careless provider does:
   * in the JSON envelope's message, or (`text`) as a plain-text body. */
  | { kind: 'echo-auth'; status: number; text?: boolean }
  | { kind: 'stall' }
  | { kind: 'cut'; afterChunks: number }
  | { kind: 'reset' }
  /** Headers, then body bytes without end until the client closes the connection. */
  | { kind: 'flood'; status?: number; contentType?: string }
  /** Well-formed SSE chat chunks without end, as fast as the client reads, until it closes the
   * connection: writes of up to 64 KB holding events of many sizes (the content counts up, so a
   * reader can tell a lost or repeated byte). */
  | { kind: 'sseFlood' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  /** The body's bytes as received, decoded as UTF-8. */
  rawBody: string;
  /** The body's bytes as they arrived. */
  rawBytes: Buffer;
  /** '1.1', or '2.0' for a request that came as an HTTP/2 stream. */
  httpVersion: string;
  at: number;
}

export interface MockProviderOptions {
  port?: number;
  // Benchmarks turn recording off: a million retained request bodies would measure the
  // mock's garbage collector, not the gateway. `requests` then stays empty, so
  // waitForRequests is of no use.
  record?: boolean;
  /** Serve https with this certificate (url then starts with https://). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** With `tls`: offer HTTP/2 in ALPN as well as HTTP/1.1 (`httpVersion` in each recorded request tells which was used). */
  h2?: boolean;
}

export interface MockProvider {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  readonly aborted: number;
  setDefault(behavior: Behavior): void;
  enqueue(...behaviors: Behavior[]): void;
  waitForAbort(timeoutMs: number): Promise<void>;
  waitForRequests(n: number, timeoutMs: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

export const MOCK_PROMPT_TOKENS = 11;
const OK: Behavior = Object.freeze({ kind: 'ok' });
const JSON_TYPE = 'application/json';
const JSON_HEADERS = Object.freeze({ 'content-type': JSON_TYPE });
const SSE_HEADERS = Object.freeze({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
const MODELS_BODY = Buffer.from(JSON.stringify({
  object: 'list',
  data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }],
}));
const DONE_EVENT = 'data: [DONE]\n\n';

/** The text chunk `i` of a mock stream carries; tests compare against `streamText`. */
export function streamToken(i: number): string {
  return `tok${i} `;
}

/** Everything a `chunks`-long mock stream says, concatenated. */
export function streamText(chunks: number): string {
  let s = '';
  for (let i = 0; i < chunks; i++) s += streamToken(i);
  return s;
}

/** The deterministic vector for input `index`; every value is exact in float32. */
export function embeddingFor(index: number): number[] {
  const v = new Array<number>(8);
  for (let k = 0; k < 8; k++) v[k] = (k % 2 === 0 ? 1 : -1) * ((index % 64) + 1 + k / 8);
  return v;
}

export function embeddingBase64(index: number): string {
  const f = Float32Array.from(embeddingFor(index));
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64'); // LE on every supported platform
}

// The tail of a chat.completion after `"model":…`, per ok behaviour: only the id, time and
// model vary per request, so everything else is serialised once.
const chatTails = new WeakMap<Behavior, string>();
function chatTail(b: Extract<Behavior, { kind: 'ok' }>): string {
  let tail = chatTails.get(b);
  if (tail === undefined) {
    const u = b.usage === undefined ? { prompt_tokens: MOCK_PROMPT_TOKENS, completion_tokens: 7 } : b.usage;
    tail = `,"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(b.content ?? 'mock reply')}},` +
      `"finish_reason":"stop"}]` + (u === null ? '}' : `,"usage":${usageJson(u)}}`);
    chatTails.set(b, tail);
  }
  return tail;
}

// The `"choices":…}` ends of every event of an n-chunk stream, with and without usage.
// OpenAI sends `"usage":null` on content chunks when usage was requested, so the mock does too:
// a gateway that finds usage by substring must not be fooled by it.
const streamTails = [new Map<number, string[]>(), new Map<number, string[]>()];
function streamEvents(chunks: number, withUsage: boolean): string[] {
  const cache = streamTails[withUsage ? 1 : 0];
  let tails = cache.get(chunks);
  if (tails === undefined) {
    tails = [];
    const usageNull = withUsage ? ',"usage":null' : '';
    for (let i = 0; i < chunks; i++) {
      const delta = i === 0 ? { role: 'assistant', content: streamToken(i) } : { content: streamToken(i) };
      const finish = i === chunks - 1 ? '"stop"' : 'null';
      tails.push(`[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${finish}}]${usageNull}}\n\n`);
    }
    if (withUsage) {
      tails.push(`[],"usage":{"prompt_tokens":${MOCK_PROMPT_TOKENS},"completion_tokens":${chunks},` +
        `"total_tokens":${MOCK_PROMPT_TOKENS + chunks}}}\n\n`);
    }
    cache.set(chunks, tails);
  }
  return tails;
}

function errorBody(status: number): string {
  return JSON.stringify({ error: { message: `mock error ${status}`, type: 'mock_error', code: `mock_${status}` } });
}

function modelOf(body: any): string {
  return typeof body?.model === 'string' ? body.model : 'mock-model';
}

// Inputs may be a string, an array of strings, a token array, or an array of token arrays.
function embeddingInputs(input: unknown): unknown[] {
  if (!Array.isArray(input)) return [input];
  return input.length > 0 && typeof input[0] === 'number' ? [input] : input;
}

function tokensOf(input: unknown): number {
  if (typeof input === 'string') return Math.max(1, Math.ceil(input.length / 4));
  return Array.isArray(input) ? input.length : 1;
}

class MockProviderServer implements MockProvider {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #record: boolean;
  readonly #sockets = new Set<Socket>();
  #queue: Behavior[] = [];
  #default: Behavior = OK;
  #aborted = 0;
  #unclaimedAborts = 0;
  #abortWaiters: (() => void)[] | null = null;
  #requestWaiters: (() => void)[] | null = null;
  // Responses the mock itself destroyed (cut, reset): their close is not a client abort.
  readonly #selfClosed = new WeakSet<ServerResponse>();
  #closing = false;
  #seq = 0;

  constructor(server: Server, port: number, record: boolean, scheme: 'http' | 'https') {
    this.#server = server;
    this.port = port;
    this.url = `${scheme}://127.0.0.1:${port}/v1`;
    this.#record = record;
    server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.once('close', () => this.#sockets.delete(s));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#onRequest(req, res));
  }

  get aborted(): number {
    return this.#aborted;
  }

  setDefault(behavior: Behavior): void {
    this.#default = behavior;
  }

  enqueue(...behaviors: Behavior[]): void {
    this.#queue.push(...behaviors);
  }

  // Each abort satisfies one waiter, so a test that aborts and only then starts waiting does
  // not race the abort's arrival.
  waitForAbort(timeoutMs: number): Promise<void> {
    if (this.#unclaimedAborts > 0) {
      this.#unclaimedAborts--;
      return Promise.resolve();
    }
    return this.#waitOn('abort', timeoutMs, () => `mock: no aborted request within ${timeoutMs}ms`);
  }

  waitForRequests(n: number, timeoutMs: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return this.#waitOn('request', timeoutMs, () =>
      `mock: expected ${n} requests within ${timeoutMs}ms, saw ${this.requests.length}`, () => this.requests.length >= n);
  }

  reset(): void {
    this.#queue = [];
    this.requests.length = 0;
    this.#aborted = 0;
    this.#unclaimedAborts = 0;
    this.#default = OK;
  }

  close(): Promise<void> {
    this.#closing = true;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    return closed;
  }

  #waitOn(kind: 'abort' | 'request', timeoutMs: number, message: () => string, done?: () => boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const list = kind === 'abort' ? (this.#abortWaiters ??= []) : (this.#requestWaiters ??= []);
      const waiter = (): void => {
        if (done !== undefined && !done()) return;
        clearTimeout(timer);
        remove();
        resolve();
      };
      const remove = (): void => {
        const i = list.indexOf(waiter);
        if (i >= 0) list.splice(i, 1);
      };
      const timer = setTimeout(() => {
        remove();
        reject(new Error(message()));
      }, timeoutMs);
      list.push(waiter);
    });
  }

  #notify(list: (() => void)[] | null): void {
    if (list === null) return;
    for (const w of list.slice()) w();
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    res.once('close', () => {
      if (answered(res) || this.#closing || this.#selfClosed.has(res)) return;
      this.#aborted++;
      const waiters = this.#abortWaiters;
      if (waiters !== null && waiters.length > 0) waiters[0]();
      else this.#unclaimedAborts++;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.#dispatch(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
  }

  #dispatch(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    let body: any = raw.length === 0 ? '' : raw.toString('utf8');
    if (body !== '') {
      try {
        body = JSON.parse(body);
      } catch {
        // not JSON: recorded as the raw string
      }
    }
    if ((path === '/v1/audio/transcriptions' || path === '/v1/audio/translations' || path === '/v1/speech-to-text') && req.method === 'POST') {
      void this.#transcription(req, res, path, raw);
      return;
    }
    if (this.#record) this.#remember(req, path, body, raw);

    const method = req.method;
    if (method === 'POST' && path === '/v1/chat/completions') this.#chat(res, body, this.#next());
    else if (method === 'POST' && path === '/v1/embeddings') this.#embeddings(res, body, this.#next());
    else if (method === 'POST' && path === '/v1/audio/speech') this.#speech(res, body, this.#next());
    // Sarvam's own speech API (text, output_audio_codec), streamed the same way.
    else if (method === 'POST' && path === '/v1/text-to-speech/stream') this.#speech(res, body, this.#next());
    // A key with "rejected" in it is refused, as a provider refuses a wrong key.
    else if (method === 'GET' && path === '/v1/models' && (req.headers.authorization ?? '').includes('rejected')) {
      this.#send(res, 401, JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    } else if (method === 'GET' && path === '/v1/models') this.#send(res, 200, MODELS_BODY);
    else {
      this.#send(res, 404, JSON.stringify({
        error: { message: `mock: no route for ${method} ${path}`, type: 'invalid_request_error', code: 'not_found' },
      }));
    }
  }

  #remember(req: IncomingMessage, path: string, body: any, raw: Buffer): void {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    this.requests.push({ method: req.method ?? '', path, headers, body, rawBody: raw.toString('utf8'), rawBytes: raw, httpVersion: req.httpVersion, at: Date.now() });
    this.#notify(this.#requestWaiters);
  }

  #next(): Behavior {
    return this.#queue.length > 0 ? this.#queue.shift()! : this.#default;
  }

  #send(res: ServerResponse, status: number, body: string | Buffer, headers?: Record<string, string>): void {
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': buf.length, ...headers });
    res.end(buf);
  }

  // Shared by both routes; returns true when the behaviour fully handled the response.
  #common(res: ServerResponse, b: Behavior): boolean {
    switch (b.kind) {
      case 'status':
        if (typeof b.body === 'string') this.#send(res, b.status, b.body, { 'content-type': 'text/plain', ...b.headers });
        else this.#send(res, b.status, b.body === undefined ? errorBody(b.status) : JSON.stringify(b.body), b.headers);
        return true;
      case 'echo-auth': {
        const h = res.req.headers;
        const sent = h.authorization ?? h['api-subscription-key'] ?? h['x-api-key'] ?? '(none)';
        const message = `Invalid API key: ${String(sent)}`;
        if (b.text) this.#send(res, b.status, `${message}\n`, { 'content-type': 'text/plain' });
        else this.#send(res, b.status, JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } }));
        return true;
      }
      case 'stall':
        return true;
      case 'reset':
        this.#selfClosed.add(res);
        drop(res);
        return true;
      case 'flood':
        this.#flood(res, b.status ?? 200, b.contentType ?? JSON_TYPE);
        return true;
      case 'sseFlood':
        this.#sseFlood(res);
        return true;
      default:
        return false;
    }
  }

  #chat(res: ServerResponse, body: any, b: Behavior): void {
    if (this.#common(res, b)) return;
    const wantsStream = body?.stream === true;
    if (b.kind === 'ok') {
      const answer = (): void => {
        if (wantsStream) this.#stream(res, body, 3, 0, 'auto');
        else this.#send(res, 200, this.#chatHead(body, 'chat.completion') + chatTail(b));
      };
      if (b.delayMs) this.#later(res, b.delayMs, answer);
      else answer();
    } else if (b.kind === 'stream') {
      this.#stream(res, body, Math.max(1, b.chunks ?? 3), b.intervalMs ?? 0, b.includeUsage ?? 'auto', b.usage);
    } else if (b.kind === 'parts') {
      this.#parts(res, b);
    } else if (b.kind === 'cut') {
      const tails = streamEvents(Math.max(b.afterChunks + 1, 3), false);
      const prefix = 'data: ' + this.#chatHead(body, 'chat.completion.chunk') + ',"choices":';
      let out = '';
      for (let i = 0; i < b.afterChunks; i++) out += prefix + tails[i];
      this.#cut(res, SSE_HEADERS, out);
    }
  }

  // Everything up to `"model":…`; callers append the precomputed `,"choices":…` tail.
  #chatHead(body: any, object: string): string {
    return `{"id":"chatcmpl-mock-${++this.#seq}","object":"${object}","created":${Math.floor(Date.now() / 1000)},` +
      `"model":${JSON.stringify(modelOf(body))}`;
  }

  #stream(res: ServerResponse, body: any, chunks: number, intervalMs: number, includeUsage: 'auto' | 'always' | 'never',
    usage?: MockUsage): void {
    const withUsage = includeUsage === 'always' ||
      (includeUsage === 'auto' && body?.stream_options?.include_usage === true);
    const prefix = 'data: ' + this.#chatHead(body, 'chat.completion.chunk') + ',"choices":';
    let tails = streamEvents(chunks, withUsage);
    if (withUsage && usage !== undefined) {
      tails = [...tails.slice(0, -1), `[],"usage":${usageJson(usage)}}\n\n`];
    }
    res.writeHead(200, SSE_HEADERS);
    if (intervalMs <= 0) {
      // One write for the whole stream: nobody can observe the boundaries without a delay,
      // and 22 small writes per stream would make the mock the benchmark's bottleneck.
      let out = '';
      for (const t of tails) out += prefix + t;
      res.end(out + DONE_EVENT);
      return;
    }
    let i = 0;
    const step = (): void => {
      if (res.destroyed) return;
      if (i < tails.length) {
        res.write(prefix + tails[i++]);
        this.#later(res, intervalMs, step);
      } else {
        res.end(DONE_EVENT);
      }
    };
    step();
  }

  #parts(res: ServerResponse, b: Extract<Behavior, { kind: 'parts' }>): void {
    res.writeHead(200, b.contentType === undefined ? SSE_HEADERS : { 'content-type': b.contentType });
    let i = 0;
    const step = (): void => {
      if (res.destroyed) return;
      if (i === b.parts.length) {
        if (!b.hold) res.end();
        return;
      }
      res.write(b.parts[i++]);
      this.#later(res, b.intervalMs ?? 10, step);
    };
    step();
  }

  #embeddings(res: ServerResponse, body: any, b: Behavior): void {
    if (this.#common(res, b)) return;
    if (b.kind === 'cut') return this.#cut(res, JSON_HEADERS, '');
    if (b.kind === 'parts') return this.#parts(res, b);
    const answer = (): void => {
      const inputs = embeddingInputs(body?.input);
      const base64 = body?.encoding_format === 'base64';
      let data = '';
      let tokens = 0;
      for (let i = 0; i < inputs.length; i++) {
        const vector = base64 ? `"${embeddingBase64(i)}"` : JSON.stringify(embeddingFor(i));
        data += `${i === 0 ? '' : ','}{"object":"embedding","index":${i},"embedding":${vector}}`;
        tokens += tokensOf(inputs[i]);
      }
      const usage = b.kind === 'ok' && b.usage === null ? '' : `,"usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}`;
      this.#send(res, 200, `{"object":"list","data":[${data}],"model":${JSON.stringify(modelOf(body))}${usage}}`);
    };
    if (b.kind === 'ok' && b.delayMs) this.#later(res, b.delayMs, answer);
    else answer();
  }

  // The form is read with undici's own multipart parser, not the gateway's, and recorded as
  // `body`: text fields as strings, files as { filename, type, bytes }.
  async #transcription(req: IncomingMessage, res: ServerResponse, path: string, raw: Buffer): Promise<void> {
    const fields: Record<string, unknown> = {};
    try {
      const form = await new Response(raw, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      for (const [k, v] of form) {
        fields[k] = typeof v === 'string' ? v : { filename: v.name, type: v.type, bytes: Buffer.from(await v.arrayBuffer()) };
      }
    } catch (e) {
      this.#send(res, 400, JSON.stringify({ error: { message: `mock: bad form: ${(e as Error).message}`, type: 'invalid_request_error', code: 'bad_form' } }));
      return;
    }
    if (this.#record) this.#remember(req, path, fields, raw);
    const b = this.#next();
    if (this.#common(res, b)) return;
    const reported = b.kind === 'ok' && b.usage === null ? null : MOCK_AUDIO_SECONDS;
    const text = b.kind === 'ok' && b.content !== undefined ? b.content : 'mock transcript';
    if (path === '/v1/speech-to-text') {
      // Sarvam's shape: no duration, the detected language when asked to detect.
      const language = fields.language_code === 'unknown' ? 'hi-IN' : fields.language_code;
      this.#send(res, 200, JSON.stringify({ request_id: `mock-${++this.#seq}`, transcript: text, language_code: language }));
      return;
    }
    const format = fields.response_format ?? 'json';
    if (format === 'text') this.#send(res, 200, text, { 'content-type': 'text/plain; charset=utf-8' });
    else if (format === 'verbose_json') {
      const task = path === '/v1/audio/translations' ? 'translate' : 'transcribe';
      this.#send(res, 200, JSON.stringify({ task, language: task === 'translate' ? 'english' : 'hindi', text, segments: [], ...(reported === null ? {} : { duration: reported }) }));
    } else {
      this.#send(res, 200, JSON.stringify({ text, ...(reported === null ? {} : { usage: { type: 'duration', seconds: reported } }) }));
    }
  }

  // Audio in SPEECH_CHUNKS writes 5 ms apart; `cut` drops the connection after `afterChunks` of them.
  #speech(res: ServerResponse, body: any, b: Behavior): void {
    if (this.#common(res, b)) return;
    if (b.kind === 'parts') return this.#parts(res, b);
    const chunks = speechAudio(String(body?.input ?? body?.text ?? ''));
    const type = AUDIO_TYPES[body?.response_format ?? body?.output_audio_codec ?? 'mp3'] ?? 'application/octet-stream';
    const stop = b.kind === 'cut' ? b.afterChunks : chunks.length;
    if (b.kind === 'cut') this.#selfClosed.add(res);
    res.writeHead(200, { 'content-type': type });
    let i = 0;
    const step = (): void => {
      if (i === stop) {
        if (b.kind === 'cut') drop(res);
        else res.end();
        return;
      }
      const c = chunks[i++];
      if (b.kind === 'cut' && !isH2(res)) res.socket?.write(Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]));
      else res.write(c);
      this.#later(res, 5, step);
    };
    if (b.kind === 'cut') res.flushHeaders();
    step();
  }

  // Writes as fast as the client reads, honouring backpressure, until the client hangs up.
  #flood(res: ServerResponse, status: number, contentType: string): void {
    res.writeHead(status, { 'content-type': contentType });
    const prefix = contentType.startsWith('text/event-stream') ? 'data: {"choices":[{"delta":{"content":"' : '{"data":"';
    res.write(prefix);
    const piece = Buffer.alloc(64 * 1024, 0x61);
    const pump = (): void => {
      while (!res.destroyed && res.write(piece));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  }

  #sseFlood(res: ServerResponse): void {
    res.writeHead(200, SSE_HEADERS);
    const head = `data: {"id":"chatcmpl-flood-${++this.#seq}","object":"chat.completion.chunk","created":0,"model":"flood-model",` +
      '"choices":[{"index":0,"delta":{"content":"';
    const tail = '"},"finish_reason":null}]}\n\n';
    let n = 0;
    const write = (): boolean => {
      let out = '';
      // Event sizes cycle from a few bytes to ~40 KB, so writes straddle uWS's 16 KB cork buffer.
      while (out.length < 64 * 1024) {
        const size = (n * 7919) % 40_000;
        out += head + String(n++).padEnd(size + 1, '.') + tail;
      }
      return res.write(out);
    };
    const pump = (): void => {
      while (!res.destroyed && write());
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  }

  // Sends the headers and `bytes`, then drops the connection without the chunked terminator.
  #cut(res: ServerResponse, headers: Readonly<Record<string, string>>, bytes: string): void {
    this.#selfClosed.add(res);
    res.writeHead(200, headers);
    res.flushHeaders();
    if (isH2(res)) {
      // Over HTTP/2 the cut is the stream's reset after its data; the session lives on.
      if (bytes === '') drop(res);
      else res.write(bytes, () => drop(res));
      return;
    }
    // Destroying in the socket's write callback lets the bytes reach the kernel first, so the
    // client sees them and then the drop. The frame goes straight to the socket because
    // res.write('') for a header-only cut writes nothing and so never calls back.
    res.socket?.write(bytes === '' ? '' : chunkFrame(bytes), () => res.socket?.destroy());
  }

  // Timers are unref'd and cleared on close so a stalled test process can still exit.
  #later(res: ServerResponse, ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      res.off('close', cancel);
      if (!res.destroyed) fn();
    }, ms);
    t.unref();
    const cancel = (): void => clearTimeout(t);
    res.once('close', cancel);
  }
}

export const MOCK_AUDIO_SECONDS = 3.2;
const SPEECH_CHUNKS = 3;
const AUDIO_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg', opus: 'audio/ogg', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm', linear16: 'audio/pcm',
};

/** The mock's "audio" for a speech input: binary chunks (every byte value) that name the input. */
export function speechAudio(input: string): Buffer[] {
  const all = Buffer.alloc(256);
  for (let i = 0; i < 256; i++) all[i] = i;
  return Array.from({ length: SPEECH_CHUNKS }, (_, i) => Buffer.concat([Buffer.from(`AUDIO${i}:${input}:`), all]));
}

/** An HTTP/2 response (the compatibility API), whose socket is shared by every stream of its session. */
function isH2(res: ServerResponse): boolean {
  return (res as unknown as Http2ServerResponse).stream !== undefined;
}

/**
 * Whether the answer was written to its end. Over HTTP/2 the response reports itself finished
 * whenever its stream closes, a client's RST_STREAM included: the stream's reset code tells.
 */
function answered(res: ServerResponse): boolean {
  return isH2(res) ? (res as unknown as Http2ServerResponse).stream.rstCode === h2constants.NGHTTP2_NO_ERROR : res.writableFinished;
}

/** Drops the answer without an end: the connection over HTTP/1.1, the stream (RST_STREAM) over HTTP/2. */
function drop(res: ServerResponse): void {
  if (isH2(res)) (res as unknown as Http2ServerResponse).stream.close(h2constants.NGHTTP2_INTERNAL_ERROR);
  else res.socket?.destroy();
}

// One chunked-encoding frame, as res.write would have framed it.
function chunkFrame(s: string): string {
  return `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
}

export async function startMockProvider(opts: MockProviderOptions = {}): Promise<MockProvider> {
  const server = opts.tls && opts.h2 ? createSecureServer({ ...opts.tls, allowHTTP1: true }) as unknown as Server
    : opts.tls ? createHttpsServer({ ...opts.tls, keepAliveTimeout: 30_000, noDelay: true }) as unknown as Server
      : createServer({ keepAliveTimeout: 30_000, noDelay: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return new MockProviderServer(server, (server.address() as AddressInfo).port, opts.record ?? true, opts.tls ? 'https' : 'http');
}
