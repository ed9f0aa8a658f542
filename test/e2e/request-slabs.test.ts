import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server, type Socket } from 'node:net';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';

// A large client body, and a large translated request, are each in a slab that is lent again
// once nothing can read it (lib/request-slabs.ts). The provider here answers as soon as a
// request's head is in, then reads its body only later: the request has ended (answered, billed)
// while the gateway's socket still writes it. Its slab must not be lent to the next request until that write is done, or the
// provider would read the next request's bytes in its place.

const LLAMA = 'llama-3.3-70b-instruct';
const ANSWER = JSON.stringify({
  id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'groq-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
});
const RESPONSE = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(ANSWER)}\r\n\r\n${ANSWER}`;

/** A provider speaking HTTP/1.1 by hand: it answers each request at its head and reads its body `lagMs` later. */
class EarlyAnswerer {
  readonly bodies: Buffer[] = [];
  lagMs = 0;
  readonly #server: Server;
  #waiters: (() => void)[] = [];

  constructor() {
    this.#server = createServer((s) => this.#serve(s));
  }

  listen(): Promise<string> {
    return new Promise((resolve) => this.#server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(this.#server.address() as { port: number }).port}`)));
  }

  /** Resolves once `n` bodies have been read whole. */
  async bodiesRead(n: number): Promise<void> {
    while (this.bodies.length < n) await new Promise<void>((r) => this.#waiters.push(r));
  }

  #serve(s: Socket): void {
    let pending = Buffer.alloc(0);
    let need = -1;
    s.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (need < 0) {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = pending.subarray(0, end).toString('latin1');
          need = Number(/content-length: *(\d+)/i.exec(head)![1]);
          pending = pending.subarray(end + 4);
          s.write(RESPONSE);
          if (this.lagMs > 0) {
            s.pause();
            setTimeout(() => s.resume(), this.lagMs);
          }
        }
        if (pending.length < need) return;
        this.bodies.push(Buffer.from(pending.subarray(0, need)));
        pending = pending.subarray(need);
        need = -1;
        for (const w of this.#waiters.splice(0)) w();
      }
    });
    s.on('error', () => {});
  }

  close(): Promise<void> {
    return new Promise((r) => this.#server.close(() => r()));
  }
}

let gw: GatewayProcess;
let upstream: EarlyAnswerer;
let key: string;

test.before(async () => {
  upstream = new EarlyAnswerer();
  const url = await upstream.listen();
  gw = await startGateway({ bodyLimitBytes: 16 * 1024 * 1024, providers: { groq: { baseUrl: url, apiKey: 'sk-groq' } } });
  ({ key } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  await upstream.close();
});

/** A Messages turn of `turns` messages, each of about `each` bytes marked with `mark`. */
function messagesTurn(mark: string, turns: number, each: number): string {
  const messages = Array.from({ length: turns }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `${mark} ${i} ${'m'.repeat(each)}`,
  }));
  messages.push({ role: 'user', content: `${mark} last` });
  return JSON.stringify({ model: LLAMA, max_tokens: 16, system: `${mark} system`, messages });
}

/** The same as a Responses request. */
function responsesTurn(mark: string, turns: number, each: number): string {
  const input = Array.from({ length: turns }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `${mark} ${i} ${'r'.repeat(each)}`,
  }));
  input.push({ role: 'user', content: `${mark} last` });
  return JSON.stringify({ model: LLAMA, instructions: `${mark} system`, input, store: false });
}

/** The same as a chat request, passed through as the client wrote it. */
function chatTurn(mark: string, turns: number, each: number): string {
  const messages = [{ role: 'system', content: `${mark} system` }, ...Array.from({ length: turns }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `${mark} ${i} ${'c'.repeat(each)}`,
  })), { role: 'user', content: `${mark} last` }];
  return JSON.stringify({ model: LLAMA, max_tokens: 16, messages });
}

/** Every message of a chat request the provider read carries `mark` and no other request's. */
function assertOwn(body: Buffer, mark: string, turns: number): void {
  const chat = JSON.parse(body.toString('utf8')) as { messages: { content: string }[] };
  assert.is(chat.messages.length, turns + 2, `${mark}: the system prompt and every turn`);
  for (const m of chat.messages) assert.ok(m.content.startsWith(`${mark} `), `${mark}: ${m.content.slice(0, 40)}`);
}

function post(path: string, body: string): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
}

interface Turn {
  path: string;
  body: string;
}

/**
 * Sends `a` and waits for its answer (given at its head, before the provider reads its body), then
 * `b` and `c` at once while `a`'s bytes are still on their way; checks that every body the
 * provider read carries its own marks and no other's, and returns them by mark.
 */
async function endedWhileWritten(a: Turn, b: Turn, c: Turn): Promise<Map<string, Buffer>> {
  // 6 MB: more than loopback's buffers take while the provider is not reading (a 4 MB send buffer at most, tcp_wmem).
  upstream.lagMs = 400;
  const first = upstream.bodies.length;
  const answered = await post(a.path, a.body);
  assert.is(answered.status, 200, await answered.clone().text());
  assert.match(await answered.text(), '"ok"');
  // The first request has ended; its bytes are still on their way. The next two are written now.
  for (const r of await Promise.all([post(b.path, b.body), post(c.path, c.body)])) {
    assert.is(r.status, 200, await r.clone().text());
    await r.arrayBuffer();
  }
  await upstream.bodiesRead(first + 3);
  const read = upstream.bodies.slice(first);
  const marks = read.map((body) => body.subarray(0, 4000).toString('utf8').match(/(AAAA|BBBB|CCCC) system/)![1]);
  assert.equal([...marks].sort(), ['AAAA', 'BBBB', 'CCCC']);
  read.forEach((body, i) => assertOwn(body, marks[i], 600));
  return new Map(read.map((body, i) => [marks[i], body]));
}

test('a request answered before the provider read it keeps its bytes while the next ones are written', async () => {
  await endedWhileWritten({ path: '/v1/messages', body: messagesTurn('AAAA', 600, 10_000) },
    { path: '/v1/messages', body: messagesTurn('BBBB', 600, 10_000) },
    { path: '/v1/responses', body: responsesTurn('CCCC', 600, 10_000) });
});

test("a client's large body passed through is kept while the provider reads it, whatever the next requests bring", async () => {
  // The client's body itself is read into a lent slab (the inference routes' lendsBody): given
  // back when its route has answered, it must still not be lent while the socket writes it.
  const sent = chatTurn('BBBB', 600, 10_000);
  const read = await endedWhileWritten({ path: '/v1/chat/completions', body: chatTurn('AAAA', 600, 10_000) },
    { path: '/v1/chat/completions', body: sent },
    { path: '/v1/messages', body: messagesTurn('CCCC', 600, 10_000) });
  // The client's bytes went through as they were, the model id aside (the route's own id).
  assert.ok(read.get('BBBB')!.toString('utf8').endsWith(sent.slice(sent.indexOf(',"messages":'))), 'the messages as the client wrote them');
});

test('large bodies refused, and large bodies answered at once, leave the next ones whole', async () => {
  upstream.lagMs = 0;
  const big = 'x'.repeat(300_000);
  // Not JSON, a field the gateway refuses, and a model it does not know: each answered before any provider is asked.
  const refused = await Promise.all([
    post('/v1/chat/completions', `{"model":"${LLAMA}","messages":[{"role":"user","content":"${big}"}]`),
    post('/v1/chat/completions', JSON.stringify({ model: LLAMA, messages: [{ role: 'user', content: big }], max_tokens: -1 })),
    post('/v1/messages', JSON.stringify({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: big }] })),
  ]);
  assert.equal(refused.map((r) => r.status), [400, 400, 404]);
  const bodies = await Promise.all(refused.map((r) => r.json() as Promise<{ error: { type: string } } & { type?: string }>));
  assert.is(bodies[2].type, 'error', 'the Messages route answers in its own shape');
  const first = upstream.bodies.length;
  const marks = ['P1', 'P2', 'P3', 'P4'].map((m) => `${m}XX`);
  const answers = await Promise.all(marks.map((m) => post('/v1/chat/completions', chatTurn(m, 30, 10_000))));
  for (const r of answers) assert.is(r.status, 200, await r.text());
  await upstream.bodiesRead(first + marks.length);
  for (const body of upstream.bodies.slice(first)) {
    const mark = /P\dXX/.exec(body.subarray(0, 200).toString('utf8'))![0];
    assertOwn(body, mark, 30);
  }
});

test('many large translated requests at once: each provider read its own bytes, and again turn after turn', async () => {
  upstream.lagMs = 0;
  for (let round = 0; round < 3; round++) {
    const first = upstream.bodies.length;
    const marks = Array.from({ length: 12 }, (_, i) => `R${round}N${String(i).padStart(2, '0')}`);
    const answers = await Promise.all(marks.map((m, i) => i % 2 === 0
      ? post('/v1/messages', messagesTurn(m, 40 + i, 4_000)) : post('/v1/responses', responsesTurn(m, 40 + i, 4_000))));
    for (const r of answers) {
      assert.is(r.status, 200, await r.clone().text());
      await r.arrayBuffer();
    }
    await upstream.bodiesRead(first + marks.length);
    for (const body of upstream.bodies.slice(first)) {
      const mark = /R\dN\d\d/.exec(body.subarray(0, 2000).toString('utf8'))![0];
      assertOwn(body, mark, 40 + Number(mark.slice(-2)));
    }
  }
});

test.run();
