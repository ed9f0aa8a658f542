// Answers whose provider reports no usage: the client is told an estimate, the ledger bills the
// same estimate and flags it, so a provider without usage is never free inference.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { costOf, GROQ, query, waitForValue } from '../support/ledger.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, readSse } from '../support/wait.js';

/** text-embedding-3-small: ₹1.76 per 1M input tokens. */
const EMBED = { input: 1.76, output: 0 };
// chatBody()'s one message, 'hi': 3 to prime the reply + 3 for the message + 1 for its text.
const HI_PROMPT = 7;
let gw: GatewayProcess;
let a: MockProvider;
let orgId: string;
let key: string;
let client: OpenAI;

test.before(async () => {
  a = await startMockProvider();
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: a.url, apiKey: 'k1' }, openai: { baseUrl: a.url, apiKey: 'k2' } },
  });
  ({ orgId, key } = await gw.orgAndKey({ credit: 100 }));
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await a.close();
});
test.before.each(() => a.reset());

const rowOf = (requestId: string) => waitForValue(() =>
  query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? AND billable = 1').get(requestId) as any), 5_000,
`the ledger row of ${requestId}`);
const balance = () => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number);
const settled = async (before: number, cost: number) => waitForValue(() => balance() === before - cost, 5_000, 'the debit');
// The estimated usage chunk goes only to clients that ask for usage, as OpenAI's does.
const stream = (extra: Record<string, unknown> = {}, signal?: AbortSignal) => fetch(`${gw.url}/v1/chat/completions`,
  { method: 'POST', headers: bearer(key), body: chatBody({ stream: true, stream_options: { include_usage: true }, ...extra }), signal });
/** gpt-4o-mini's route has the same model id upstream, so its stream passes byte for byte (llama's is renamed). */
const PLAIN = { model: 'gpt-4o-mini' };
const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
const delta = (content: string) => sse({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 7, model: 'up', choices: [{ index: 0, delta: { content } }] });

test('a whole answer without usage gets an estimated usage block, flagged, and the ledger bills exactly that', async () => {
  a.enqueue({ kind: 'ok', usage: null, content: 'Twelve bytes' });
  const before = balance();
  const { data, response } = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello' }],
  }).withResponse();
  // 3 + (3 + 3) + (3 + 2) prompt; 12 bytes of reply.
  assert.equal(data.usage, { prompt_tokens: 14, completion_tokens: 3, total_tokens: 17 });
  assert.equal((data as any).x_gw, { usage_estimated: true });
  assert.is(data.choices[0].message.content, 'Twelve bytes', 'the answer itself is unchanged');
  assert.is(response.headers.get('x-gw-usage'), 'estimated');
  const row = await rowOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.prompt_tokens, row.completion_tokens, row.usage_estimated], [14, 3, 1]);
  assert.is(row.cost_micros, costOf(GROQ, 14, 3));
  await settled(before, row.cost_micros);

  // A provider that reports usage is taken at its word, and nothing is added.
  const reported = await client.chat.completions.create({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.is((reported.data as any).x_gw, undefined);
  assert.is(reported.response.headers.get('x-gw-usage'), null);
  assert.is((await rowOf(reported.response.headers.get('x-gw-request-id')!)).usage_estimated, 0);
});

test('a stream that reaches [DONE] without usage gets an estimated usage chunk just before it (openai SDK)', async () => {
  a.enqueue({ kind: 'stream', chunks: 5, intervalMs: 5, includeUsage: 'never' });
  const before = balance();
  const { data: chunks, response } = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true },
  }).withResponse();
  let text = '';
  const seen: any[] = [];
  for await (const c of chunks) {
    seen.push(c);
    text += c.choices[0]?.delta?.content ?? '';
  }
  assert.is(text, streamText(5));
  const last = seen.at(-1);
  const completion = Math.ceil(Buffer.byteLength(streamText(5)) / 4);
  assert.equal(last.usage, { prompt_tokens: HI_PROMPT, completion_tokens: completion, total_tokens: HI_PROMPT + completion });
  assert.equal(last.choices, []);
  assert.equal(last.x_gw, { usage_estimated: true });
  assert.is(last.id, seen[0].id, 'shaped like the stream it closes');
  assert.is(last.model, 'llama-3.3-70b-instruct', 'the model the client asked for, as on every chunk');
  assert.is(seen[0].model, 'llama-3.3-70b-instruct');
  const row = await rowOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.status, row.prompt_tokens, row.completion_tokens, row.usage_estimated], [200, HI_PROMPT, completion, 1]);
  await settled(before, costOf(GROQ, HI_PROMPT, completion));
});

test('the usage chunk goes before [DONE] whatever the chunking: [DONE] split across writes, or in one write with the text', async () => {
  const text = delta('data: [DONE]') + delta('ab');
  const scripts = [
    [delta('data: [DONE]'), delta('ab') + 'data: [DO', 'NE]\n\n'],
    [text + 'data: [DONE]\n\n'],
    [text, 'd', 'ata: [DONE]', '\n\n'],
  ];
  for (const parts of scripts) {
    a.enqueue({ kind: 'parts', parts, intervalMs: 5 });
    const r = await stream(PLAIN);
    const body = await r.text();
    assert.ok(body.startsWith(text), 'every byte the provider sent is forwarded as sent');
    assert.ok(body.endsWith('\n\ndata: [DONE]\n\n'));
    const events = body.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    assert.is(events.length, 4, JSON.stringify(parts));
    const usage = JSON.parse(events[2]);
    assert.equal(usage.usage, { prompt_tokens: HI_PROMPT, completion_tokens: 4, total_tokens: HI_PROMPT + 4 }, '14 bytes of text');
    assert.equal([usage.id, usage.created, usage.model, usage.object], ['chatcmpl-x', 7, 'up', 'chat.completion.chunk']);
    assert.is(events[3], '[DONE]');
  }
});

test('bytes held back as a possible [DONE] still go out: a first chunk that is all [DONE], and a stream cut inside it', async () => {
  a.enqueue({ kind: 'parts', parts: ['data: [DO', 'NE]\n\n'] });
  const events = await readSse(await stream(PLAIN));
  assert.equal(JSON.parse(events[0]).usage, { prompt_tokens: HI_PROMPT, completion_tokens: 0, total_tokens: HI_PROMPT });
  assert.is(events[1], '[DONE]');
  assert.is(events.length, 2);

  a.enqueue({ kind: 'parts', parts: [delta('ab'), 'data: [DO'] });
  const body = await (await stream(PLAIN)).text();
  assert.ok(body.startsWith(`${delta('ab')}data: [DO\n\ndata: {"error":`), body);
  assert.ok(body.endsWith('data: [DONE]\n\n'));
  assert.ok(!body.includes('usage_estimated'), 'no usage chunk: the stream never reached [DONE]');
});

test('a stream whose provider sends usage is forwarded byte for byte, with nothing added', async () => {
  const parts = [delta('ab'), sse({ id: 'chatcmpl-x', choices: [], usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } }), 'data: [DONE]\n\n'];
  a.enqueue({ kind: 'parts', parts, intervalMs: 5 });
  const r = await stream(PLAIN);
  assert.is(await r.text(), parts.join(''));
  const row = await rowOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.prompt_tokens, row.completion_tokens, row.usage_estimated], [2, 1, 0]);
});

test('max_tokens caps the estimated output, as the provider could not have exceeded it', async () => {
  a.enqueue({ kind: 'stream', chunks: 8, includeUsage: 'never' });
  const r = await stream({ max_tokens: 2 });
  const events = await readSse(r);
  assert.equal(JSON.parse(events.at(-2)!).usage, { prompt_tokens: HI_PROMPT, completion_tokens: 2, total_tokens: HI_PROMPT + 2 });
  assert.is((await rowOf(r.headers.get('x-gw-request-id')!)).completion_tokens, 2);
});

test('a client that did not ask for usage gets no estimated chunk, and the estimate is billed all the same', async () => {
  a.enqueue({ kind: 'stream', chunks: 5, includeUsage: 'never' });
  const before = balance();
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ stream: true }) });
  const events = await readSse(r);
  assert.is(events.at(-1), '[DONE]');
  assert.is(events.length, 6, 'the 5 content chunks and [DONE]');
  for (const e of events.slice(0, -1)) assert.is(JSON.parse(e).choices.length, 1);
  const completion = Math.ceil(Buffer.byteLength(streamText(5)) / 4);
  const row = await rowOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.prompt_tokens, row.completion_tokens, row.usage_estimated], [HI_PROMPT, completion, 1]);
  await settled(before, costOf(GROQ, HI_PROMPT, completion));
});

test('a client that disconnects mid-stream is billed an estimate of what was generated before it left', async () => {
  a.enqueue({ kind: 'stream', chunks: 200, intervalMs: 20, includeUsage: 'never' });
  const before = balance();
  const ac = new AbortController();
  const r = await stream({}, ac.signal);
  const reader = r.body!.getReader();
  let got = '';
  while (!got.includes('tok2 ')) got += Buffer.from((await reader.read()).value!).toString();
  const aborted = a.waitForAbort(5_000);
  ac.abort();
  await aborted;
  const row = await rowOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.status, row.error_code, row.usage_estimated, row.prompt_tokens], [499, 'client_aborted', 1, HI_PROMPT]);
  assert.ok(row.completion_tokens >= 4 && row.completion_tokens < 200, `${row.completion_tokens} tokens for at least 3 chunks`);
  assert.ok(row.cost_micros > 0);
  await settled(before, costOf(GROQ, HI_PROMPT, row.completion_tokens));
});

test('a stream the provider cuts is billed for the text it delivered, and still ends in an error event', async () => {
  a.enqueue({ kind: 'cut', afterChunks: 2 });
  const r = await stream();
  const events = await readSse(r);
  assert.is(JSON.parse(events.at(-2)!).error.code, 'stream_interrupted');
  const row = await rowOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.error_code, row.usage_estimated, row.prompt_tokens, row.completion_tokens], ['stream_interrupted', 1, HI_PROMPT,
    Math.ceil(Buffer.byteLength(streamText(2)) / 4)]);
});

test('embeddings without usage: input text estimated by its bytes, token ids counted exactly', async () => {
  a.enqueue({ kind: 'ok', usage: null }, { kind: 'ok', usage: null });
  const before = balance();
  const text = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['hello', 'world!'] }).withResponse();
  assert.equal(text.data.usage, { prompt_tokens: 4, total_tokens: 4 });
  assert.is(text.data.data.length, 2);
  assert.is(text.response.headers.get('x-gw-usage'), 'estimated');
  const ids = await client.embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3], [4, 5]] });
  assert.equal(ids.usage, { prompt_tokens: 5, total_tokens: 5 });
  const row = await rowOf(text.response.headers.get('x-gw-request-id')!);
  assert.equal([row.endpoint, row.prompt_tokens, row.completion_tokens, row.usage_estimated], ['embeddings', 4, 0, 1]);
  await settled(before, costOf(EMBED, 4, 0) + costOf(EMBED, 5, 0));
});

test('an answer that is not JSON is forwarded untouched and estimated from its bytes', async () => {
  a.enqueue({ kind: 'status', status: 200, body: 'plain answer' });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
  assert.is(r.status, 200);
  assert.is(await r.text(), 'plain answer');
  assert.is(r.headers.get('x-gw-usage'), 'estimated');
  const row = await rowOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.prompt_tokens, row.completion_tokens, row.usage_estimated], [HI_PROMPT, 3, 1]);
});

test.run();
