import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  embeddingFor, MOCK_PROMPT_TOKENS, startMockProvider, streamText, type MockProvider,
} from './support/mock-provider.js';

let mock: MockProvider;

test.before(async () => {
  mock = await startMockProvider();
});
test.after(() => mock.close());
test.before.each(() => mock.reset());

function chat(body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${mock.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], ...body }),
    ...init,
  });
}

// Response.json() is typed unknown; these tests inspect the shapes freely.
function json(res: Response): Promise<any> {
  return res.json();
}

async function failure(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

function events(text: string): string[] {
  return text.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => e.slice(6));
}

function contentOf(datas: string[]): string {
  let s = '';
  for (const d of datas) {
    if (d !== '[DONE]') s += JSON.parse(d).choices[0]?.delta?.content ?? '';
  }
  return s;
}

test('answers a non-streaming chat completion with the request model and default usage', async () => {
  const res = await chat({});
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json');
  const body = await json(res);
  assert.is(body.object, 'chat.completion');
  assert.is(body.model, 'gpt-test');
  assert.type(body.id, 'string');
  assert.type(body.created, 'number');
  assert.equal(body.choices, [{ index: 0, message: { role: 'assistant', content: 'mock reply' }, finish_reason: 'stop' }]);
  assert.equal(body.usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
});

test('uses the content and usage of an ok behaviour', async () => {
  mock.enqueue({ kind: 'ok', content: 'hello "there"', usage: { prompt_tokens: 3, completion_tokens: 4 } });
  const body = await json(await chat({}));
  assert.is(body.choices[0].message.content, 'hello "there"');
  assert.equal(body.usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
});

test('records method, path, lowercased headers and the parsed body of each request', async () => {
  await (await chat({ temperature: 0.5 })).text();
  await (await fetch(`${mock.url}/chat/completions?x=1`, { method: 'POST', body: 'not json' })).text();
  assert.is(mock.requests.length, 2);
  const [first, second] = mock.requests;
  assert.is(first.method, 'POST');
  assert.is(first.path, '/v1/chat/completions');
  assert.is(first.headers.authorization, 'Bearer sk-test');
  assert.is(first.body.temperature, 0.5);
  assert.type(first.at, 'number');
  assert.is(second.path, '/v1/chat/completions');
  assert.is(second.body, 'not json');
});

test('streams three chunks and [DONE] without usage when include_usage is not asked for', async () => {
  const res = await chat({ stream: true });
  assert.is(res.headers.get('content-type'), 'text/event-stream');
  const datas = events(await res.text());
  assert.is(datas.length, 4);
  assert.is(datas[3], '[DONE]');
  const first = JSON.parse(datas[0]);
  assert.is(first.object, 'chat.completion.chunk');
  assert.is(first.model, 'gpt-test');
  assert.is(first.choices[0].delta.role, 'assistant');
  assert.is(JSON.parse(datas[2]).choices[0].finish_reason, 'stop');
  assert.is(JSON.parse(datas[1]).choices[0].finish_reason, null);
  assert.not.ok(datas.some((d) => d.includes('"usage"')));
  assert.is(contentOf(datas), streamText(3));
});

test('ends a stream with a usage chunk when the request sets include_usage', async () => {
  mock.enqueue({ kind: 'stream', chunks: 5 });
  const datas = events(await (await chat({ stream: true, stream_options: { include_usage: true } })).text());
  assert.is(datas.length, 7);
  const usage = JSON.parse(datas[5]);
  assert.equal(usage.choices, []);
  assert.equal(usage.usage, { prompt_tokens: MOCK_PROMPT_TOKENS, completion_tokens: 5, total_tokens: MOCK_PROMPT_TOKENS + 5 });
  assert.is(JSON.parse(datas[0]).usage, null, 'content chunks carry usage:null as OpenAI sends them');
  assert.is(contentOf(datas), streamText(5));
});

test('honours includeUsage always and never regardless of the request', async () => {
  mock.enqueue({ kind: 'stream', chunks: 2, includeUsage: 'always' }, { kind: 'stream', chunks: 2, includeUsage: 'never' });
  const always = events(await (await chat({ stream: true })).text());
  const never = events(await (await chat({ stream: true, stream_options: { include_usage: true } })).text());
  assert.equal(JSON.parse(always[2]).usage.completion_tokens, 2);
  assert.is(never.length, 3);
});

test('delivers events as separate reads when intervalMs is set', async () => {
  mock.enqueue({ kind: 'stream', chunks: 4, intervalMs: 15 });
  const res = await chat({ stream: true });
  let reads = 0;
  let text = '';
  const decoder = new TextDecoder();
  for await (const part of res.body!) {
    reads++;
    text += decoder.decode(part, { stream: true });
  }
  assert.ok(reads >= 4, `expected at least 4 reads, got ${reads}`);
  assert.is(contentOf(events(text)), streamText(4));
});

test('answers with the status behaviour, its default error body and extra headers', async () => {
  mock.enqueue({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
  const res = await chat({});
  assert.is(res.status, 429);
  assert.is(res.headers.get('retry-after'), '2');
  assert.equal(await json(res), { error: { message: 'mock error 429', type: 'mock_error', code: 'mock_429' } });
});

test('sends a string status body as plain text', async () => {
  mock.enqueue({ kind: 'status', status: 502, body: '<html>bad gateway</html>' });
  const res = await chat({});
  assert.is(res.status, 502);
  assert.is(res.headers.get('content-type'), 'text/plain');
  assert.is(await res.text(), '<html>bad gateway</html>');
});

test('consumes enqueued behaviours in order before falling back to the default', async () => {
  mock.setDefault({ kind: 'status', status: 503 });
  mock.enqueue({ kind: 'status', status: 500 }, { kind: 'ok' });
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await chat({});
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  assert.equal(statuses, [500, 200, 503]);
});

test('cuts a stream after the given chunks so the client body fails', async () => {
  mock.enqueue({ kind: 'cut', afterChunks: 2 });
  const res = await chat({ stream: true });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let failed: unknown = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch (err) {
    failed = err;
  }
  assert.ok(failed, 'reading the body should fail');
  assert.is(events(text).length, 2);
  assert.not.ok(text.includes('[DONE]'));
  assert.is(mock.aborted, 0, 'a cut by the mock is not a client abort');
});

test('resets the connection without any response', async () => {
  mock.enqueue({ kind: 'reset' });
  let failed: unknown = null;
  try {
    await chat({});
  } catch (err) {
    failed = err;
  }
  assert.ok(failed, 'fetch should reject');
  assert.is(mock.requests.length, 1);
  assert.is(mock.aborted, 0);
});

test('counts a client abort during a stall and resolves waitForAbort', async () => {
  mock.enqueue({ kind: 'stall' });
  const controller = new AbortController();
  const pending = chat({}, { signal: controller.signal }).catch((err: unknown) => err);
  await mock.waitForRequests(1, 2000);
  const aborted = mock.waitForAbort(2000);
  controller.abort();
  assert.instance(await pending, Error);
  await aborted;
  assert.is(mock.aborted, 1);
});

test('resolves waitForAbort for an abort that arrived before the wait began', async () => {
  mock.enqueue({ kind: 'stall' });
  const controller = new AbortController();
  const pending = chat({}, { signal: controller.signal }).catch(() => undefined);
  await mock.waitForRequests(1, 2000);
  controller.abort();
  await pending;
  await mock.waitForAbort(2000);
  assert.is(mock.aborted, 1);
});

test('rejects waitForAbort and waitForRequests when nothing happens in time', async () => {
  assert.match((await failure(() => mock.waitForAbort(20))).message, /no aborted request/);
  assert.match((await failure(() => mock.waitForRequests(1, 20))).message, /expected 1 requests/);
});

test('delays an ok response by delayMs', async () => {
  mock.enqueue({ kind: 'ok', delayMs: 60 });
  const started = performance.now();
  await (await chat({})).json();
  assert.ok(performance.now() - started >= 55);
});

test('answers embeddings as floats or as base64 little-endian float32', async () => {
  const post = (body: unknown) => fetch(`${mock.url}/embeddings`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  }).then(json);
  const floats = await post({ model: 'emb', input: ['a', 'bb'] });
  assert.is(floats.object, 'list');
  assert.is(floats.model, 'emb');
  assert.is(floats.data.length, 2);
  assert.equal(floats.data[1], { object: 'embedding', index: 1, embedding: embeddingFor(1) });
  assert.equal(floats.usage, { prompt_tokens: 2, total_tokens: 2 });
  const single = await post({ model: 'emb', input: 'one', encoding_format: 'base64' });
  const bytes = Buffer.from(single.data[0].embedding, 'base64');
  assert.equal(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 8)), embeddingFor(0));
});

test('applies status behaviours to embeddings too', async () => {
  mock.enqueue({ kind: 'status', status: 400 });
  const res = await fetch(`${mock.url}/embeddings`, { method: 'POST', body: '{"input":"x"}' });
  assert.is(res.status, 400);
  await res.arrayBuffer();
});

test('cuts an embeddings response after its headers', async () => {
  mock.enqueue({ kind: 'cut', afterChunks: 0 });
  const res = await fetch(`${mock.url}/embeddings`, { method: 'POST', body: '{"input":"x"}' });
  assert.is(res.status, 200);
  assert.instance(await failure(() => res.text()), Error);
});

test('lists the mock model and answers unknown paths with a 404 error envelope', async () => {
  const models = await json(await fetch(`${mock.url}/models`));
  assert.equal(models.data[0].id, 'mock-model');
  const res = await fetch(`${mock.url}/nope`);
  assert.is(res.status, 404);
  assert.is((await json(res)).error.code, 'not_found');
});

test('closes promptly while a request is still stalled', async () => {
  const other = await startMockProvider();
  other.setDefault({ kind: 'stall' });
  const pending = fetch(`${other.url}/chat/completions`, { method: 'POST', body: '{}' }).catch((err: unknown) => err);
  await other.waitForRequests(1, 2000);
  await other.close();
  assert.instance(await pending, Error);
  assert.is(other.aborted, 0, 'closing the mock is not a client abort');
});

test.run();
