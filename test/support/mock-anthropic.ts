// A real Anthropic Messages API upstream on 127.0.0.1 (POST /v1/messages), for the native
// adapter's tests: whole answers and SSE streams in Anthropic's event sequence, tool use, usage
// with prompt-cache counts, Anthropic's error bodies, and cut streams. It checks what Anthropic
// itself refuses (no key or version header, no max_tokens, a system role among the messages,
// turns that do not alternate, empty text blocks), so a wrong translation fails as it would there.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export type AnthropicBehavior =
  /** Text, said in `deltas` pieces when streamed (default: the text cut at its spaces). */
  | { kind: 'text'; text?: string; deltas?: string[]; usage?: AnthropicUsage; stopReason?: string }
  /** A `tool_use` block (after a text block when `text` is given), its input streamed in `jsonParts`. */
  | { kind: 'tool'; name: string; input: Record<string, unknown>; id?: string; text?: string; jsonParts?: string[]; usage?: AnthropicUsage }
  /** An error answer in Anthropic's shape. */
  | { kind: 'error'; status: number; type: string; message: string }
  /** A text stream whose connection is destroyed after `afterEvents` events (no message_stop). */
  | { kind: 'cut'; afterEvents: number }
  /** A text stream that sends `afterEvents` events, then an `error` event, then ends. */
  | { kind: 'stream-error'; afterEvents: number; type: string; message: string };

export interface AnthropicRequest {
  path: string;
  headers: Record<string, string>;
  body: any;
  /** The body's bytes as they arrived. */
  raw: Buffer;
}

export const MOCK_TEXT = 'Namaste! The answer is 42.';
/**
 * Realistic counts of a request whose system prompt was mostly read from the cache, in the order
 * Anthropic writes them (test/fixtures/anthropic: input, cache writes, cache reads, output).
 */
export const MOCK_USAGE: AnthropicUsage = Object.freeze({ input_tokens: 21, cache_creation_input_tokens: 200, cache_read_input_tokens: 1800, output_tokens: 9 });

export interface MockAnthropic {
  readonly url: string;
  readonly requests: AnthropicRequest[];
  enqueue(...b: AnthropicBehavior[]): void;
  setDefault(b: AnthropicBehavior): void;
  reset(): void;
  close(): Promise<void>;
}

let seq = 0;

/**
 * `record: false` keeps no requests (benchmarks send hundreds of thousands). `oneWrite` writes a
 * stream's events in one write, as the OpenAI-shaped mock writes its streams (benchmarks: one
 * write each, the two paths read their streams in the same number of pieces); by default each
 * event is a write of its own.
 */
export async function startMockAnthropic(opts: { record?: boolean; oneWrite?: boolean } = {}): Promise<MockAnthropic> {
  const requests: AnthropicRequest[] = [];
  const queue: AnthropicBehavior[] = [];
  let fallback: AnthropicBehavior = { kind: 'text' };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      let body: any = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch { /* refused below */ }
      if (opts.record !== false) requests.push({ path: req.url ?? '', headers: req.headers as Record<string, string>, body, raw });
      serve(req, res, body, queue.shift() ?? fallback, opts.oneWrite === true);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...b) => void queue.push(...b),
    setDefault: (b) => void (fallback = b),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
      fallback = { kind: 'text' };
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

function serve(req: IncomingMessage, res: ServerResponse, body: any, b: AnthropicBehavior, oneWrite: boolean): void {
  if (req.method !== 'POST' || req.url !== '/v1/messages') return error(res, 404, 'not_found_error', `Not found: ${req.method} ${req.url}`);
  if (typeof req.headers['x-api-key'] !== 'string') return error(res, 401, 'authentication_error', 'x-api-key header is required');
  if (req.headers['anthropic-version'] !== '2023-06-01') return error(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
  const refused = invalid(body);
  if (refused !== null) return error(res, 400, 'invalid_request_error', refused);
  if (b.kind === 'error') return error(res, b.status, b.type, b.message);
  const events = eventsFor(b, body.model);
  if (body.stream !== true) return json(res, 200, messageOf(b, body.model));
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const limit = b.kind === 'cut' || b.kind === 'stream-error' ? b.afterEvents : events.length;
  if (b.kind === 'cut') {
    // Cut once the events are on the wire: destroyed before, the client would see a reset with
    // no answer at all (and may resend), not a stream broken mid-way.
    res.write(events.slice(0, limit).join(''), () => res.socket?.destroy());
    return;
  }
  if (oneWrite && b.kind !== 'stream-error') {
    res.end(events.slice(0, limit).join(''));
    return;
  }
  for (let i = 0; i < limit && i < events.length; i++) res.write(events[i]);
  if (b.kind === 'stream-error') res.write(event('error', { type: 'error', error: { type: b.type, message: b.message } }));
  res.end();
}

/** What Anthropic's API refuses with 400 invalid_request_error, in its words. */
function invalid(body: any): string | null {
  if (body === null || typeof body !== 'object') return 'Request body must be JSON';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  let prev = '';
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i];
    if (m.role !== 'user' && m.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (m.role === prev) return 'messages: roles must alternate between "user" and "assistant"';
    prev = m.role;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const c of blocks) if (c.type === 'text' && c.text === '') return `messages.${i}: text content blocks must be non-empty`;
  }
  if (body.messages[0].role !== 'user') return 'messages: first message must use the "user" role';
  if (body.temperature !== undefined && (body.temperature < 0 || body.temperature > 1)) return 'temperature: Input should be less than or equal to 1';
  return null;
}

function error(res: ServerResponse, status: number, type: string, message: string): void {
  json(res, status, { type: 'error', error: { type, message }, request_id: `req_mock${++seq}` });
}

function json(res: ServerResponse, status: number, doc: unknown): void {
  const bytes = Buffer.from(JSON.stringify(doc));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(bytes);
}

function usageOf(b: AnthropicBehavior): AnthropicUsage {
  return (b.kind === 'text' || b.kind === 'tool') && b.usage !== undefined ? b.usage : MOCK_USAGE;
}

function textOf(b: AnthropicBehavior): string | null {
  if (b.kind === 'tool') return b.text ?? null;
  return b.kind === 'text' ? b.text ?? MOCK_TEXT : MOCK_TEXT;
}

function messageOf(b: AnthropicBehavior, model: string): unknown {
  const content: unknown[] = [];
  const text = textOf(b);
  if (text !== null) content.push({ type: 'text', text });
  if (b.kind === 'tool') content.push({ type: 'tool_use', id: b.id ?? 'toolu_01A09q90qw90lq917835lq9', name: b.name, input: b.input });
  const stop = b.kind === 'tool' ? 'tool_use' : b.kind === 'text' ? b.stopReason ?? 'end_turn' : 'end_turn';
  return { id: `msg_mock${++seq}`, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage: usageOf(b) };
}

function event(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The whole event sequence of a streamed answer, as Anthropic sends it. */
function eventsFor(b: AnthropicBehavior, model: string): string[] {
  const u = usageOf(b);
  const out = [event('message_start', {
    type: 'message_start',
    message: { id: `msg_mock${++seq}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
      usage: { input_tokens: u.input_tokens, cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens, output_tokens: 1 } },
  })];
  let index = 0;
  const text = textOf(b);
  if (text !== null) {
    out.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    out.push(event('ping', { type: 'ping' }));
    const deltas = b.kind === 'text' && b.deltas !== undefined ? b.deltas : text.split(/(?<= )/);
    for (const d of deltas) out.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: d } }));
    out.push(event('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  }
  if (b.kind === 'tool') {
    out.push(event('content_block_start', { type: 'content_block_start', index,
      content_block: { type: 'tool_use', id: b.id ?? 'toolu_01A09q90qw90lq917835lq9', name: b.name, input: {} } }));
    const whole = JSON.stringify(b.input);
    const parts = b.jsonParts ?? ['', whole.slice(0, Math.ceil(whole.length / 2)), whole.slice(Math.ceil(whole.length / 2))];
    for (const p of parts) out.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } }));
    out.push(event('content_block_stop', { type: 'content_block_stop', index }));
  }
  const stop = b.kind === 'tool' ? 'tool_use' : b.kind === 'text' ? b.stopReason ?? 'end_turn' : 'end_turn';
  out.push(event('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output_tokens } }));
  out.push(event('message_stop', { type: 'message_stop' }));
  return out;
}
