// OpenTelemetry traces over OTLP/HTTP, received by a collector the test starts: a server span per
// request and a client span per upstream attempt with the GenAI attributes, the client's
// traceparent continued, the attempt's span sent on to the provider; no prompt or answer unless
// tracing.captureContent is on, and then the messages in the GenAI conventions' shape.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { parsePromText, sampleValue } from '../support/prom-text.js';
import { bearer, waitFor } from '../support/wait.js';
import { wav } from '../support/wav-file.js';

interface OtlpSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number;
  startTimeUnixNano: string; endTimeUnixNano: string; status: { code: number; message?: string };
  attributes: { key: string; value: { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean } }[];
}

let gw: GatewayProcess;
let plain: GatewayProcess;
let captured: GatewayProcess;
let capturedKey: string;
let groq: MockProvider;
let together: MockProvider;
let openai: MockProvider;
let collector: Server;
let key: string;
const bodies: string[] = [];
const spans: OtlpSpan[] = [];
const resources: unknown[] = [];

const SECRET_PROMPT = 'my secret prompt 4242';
const SECRET_ANSWER = 'my secret answer 9191';
const attr = (s: OtlpSpan, k: string) => {
  const v = s.attributes.find((a) => a.key === k)?.value;
  return v === undefined ? undefined : v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue ?? v.boolValue);
};
const ofTrace = (traceId: string) => spans.filter((s) => s.traceId === traceId);

test.before(async () => {
  collector = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      bodies.push(body);
      if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/json') {
        const doc = JSON.parse(body) as { resourceSpans: { resource: unknown; scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const rs of doc.resourceSpans) {
          resources.push(rs.resource);
          for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const otlpUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  [groq, together, openai] = await Promise.all([startMockProvider(), startMockProvider(), startMockProvider()]);
  const providers = { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' },
    openai: { baseUrl: openai.url, apiKey: 'o' } };
  [gw, plain, captured] = await Promise.all([
    startGateway({ providers, tracing: { otlpUrl, serviceName: 'gw-under-test' }, breaker: { volumeThreshold: 100_000 } }),
    startGateway({ providers }),
    startGateway({ providers, tracing: { otlpUrl, captureContent: true } }),
  ]);
  const org = (await gw.cli('org', 'create', 'traced', '--credit', '100')).id;
  key = (await gw.cli('key', 'create', '--org', org, '--name', 'k')).key;
  const capturedOrg = (await captured.cli('org', 'create', 'captured', '--credit', '100')).id;
  capturedKey = (await captured.cli('key', 'create', '--org', capturedOrg, '--name', 'k')).key;
});
test.after(async () => {
  await Promise.all([gw.cleanup(), plain.cleanup(), captured.cleanup(), groq.close(), together.close(), openai.close()]);
  await new Promise((r) => collector.close(r));
});

const chat = (headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) => fetch(`${gw.url}/v1/chat/completions`, {
  method: 'POST', headers: { ...bearer(key), ...headers },
  body: JSON.stringify({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: SECRET_PROMPT }], ...extra }),
});

/** The request span a gateway exported for the answer `res`. */
async function requestSpan(res: Response): Promise<OtlpSpan> {
  const requestId = res.headers.get('x-request-id');
  return (await waitFor(() => spans.find((s) => s.kind === 2 && attr(s, 'gw.request_id') === requestId), 5_000, 'the request span'))!;
}
/** The client spans of request span `server`, once `n` have arrived. */
const attemptsOf = async (server: OtlpSpan, n = 1): Promise<OtlpSpan[]> => {
  const found = () => spans.filter((s) => s.kind === 3 && s.parentSpanId === server.spanId);
  await waitFor(() => found().length >= n, 5_000, 'the attempt spans');
  return found();
};

const upload = (g: GatewayProcess, k: string, endpoint: string, headers: Record<string, string> = {}) => {
  const f = new FormData();
  f.append('file', new Blob([wav(1)], { type: 'audio/wav' }), 'hello.wav');
  f.append('model', 'whisper-large-v3');
  return fetch(`${g.url}/v1/audio/${endpoint}`, { method: 'POST', headers: { authorization: `Bearer ${k}`, ...headers }, body: f });
};
const speak = (g: GatewayProcess, k: string, headers: Record<string, string> = {}) => fetch(`${g.url}/v1/audio/speech`, {
  method: 'POST', headers: { ...bearer(k), ...headers }, body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'namaste' }),
});

test('a request continues the client\'s trace: a server span with the GenAI attributes, a client span per attempt, the attempt\'s span sent to the provider', async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parent = '00f067aa0ba902b7';
  groq.reset();
  const res = await chat({ traceparent: `00-${traceId}-${parent}-01` }, { provider: 'groq' });
  assert.is(res.status, 200);
  const answer = await res.json() as { usage: { prompt_tokens: number; completion_tokens: number } };
  await waitFor(() => ofTrace(traceId).length === 2, 5_000, 'two spans at the collector');
  const server = ofTrace(traceId).find((s) => s.kind === 2)!;
  const client = ofTrace(traceId).find((s) => s.kind === 3)!;
  assert.is(server.parentSpanId, parent);
  assert.is(server.name, 'chat llama-3.3-70b-instruct');
  assert.equal([attr(server, 'gen_ai.operation.name'), attr(server, 'gen_ai.request.model'), attr(server, 'gen_ai.provider.name'),
    attr(server, 'http.response.status_code'), attr(server, 'gw.request_id')],
  ['chat', 'llama-3.3-70b-instruct', 'groq', 200, res.headers.get('x-request-id')]);
  assert.equal([attr(server, 'gen_ai.usage.input_tokens'), attr(server, 'gen_ai.usage.output_tokens')],
    [answer.usage.prompt_tokens, answer.usage.completion_tokens]);
  assert.is(typeof attr(server, 'gen_ai.response.model'), 'string');
  assert.is(server.status.code, 1);
  assert.is(client.parentSpanId, server.spanId);
  assert.equal([attr(client, 'gen_ai.provider.name'), attr(client, 'http.response.status_code'), attr(client, 'gw.attempt')], ['groq', 200, 0]);
  assert.ok(BigInt(client.startTimeUnixNano) >= BigInt(server.startTimeUnixNano) && BigInt(client.endTimeUnixNano) <= BigInt(server.endTimeUnixNano) + 1_000_000n);
  // The provider was sent the attempt's span as its parent, in the same trace.
  assert.is(groq.requests[0].headers.traceparent, `00-${traceId}-${client.spanId}-01`);
  assert.equal(resources[0], { attributes: [{ key: 'service.name', value: { stringValue: 'gw-under-test' } },
    { key: 'service.version', value: { stringValue: '0.1.0' } }] });
});

test('a failover gives one client span per attempt (the failed one marked), a new trace when the client sent none, and no prompt or answer is exported', async () => {
  groq.enqueue({ kind: 'status', status: 503 });
  together.enqueue({ kind: 'ok', content: SECRET_ANSWER });
  const res = await chat({}, { provider: ['groq', 'together'] });
  assert.is(res.status, 200);
  const requestId = res.headers.get('x-request-id');
  await waitFor(() => spans.some((s) => s.kind === 2 && attr(s, 'gw.request_id') === requestId), 5_000, 'the request span');
  const server = spans.find((s) => s.kind === 2 && attr(s, 'gw.request_id') === requestId)!;
  assert.is(server.parentSpanId, undefined, 'a new trace has a root span');
  await waitFor(() => ofTrace(server.traceId).length === 3, 5_000, 'both attempts');
  const attempts = ofTrace(server.traceId).filter((s) => s.kind === 3).sort((a, b) => Number(attr(a, 'gw.attempt')) - Number(attr(b, 'gw.attempt')));
  assert.equal(attempts.map((s) => [attr(s, 'gen_ai.provider.name'), attr(s, 'http.response.status_code'), s.status.code]),
    [['groq', 503, 2], ['together', 200, 1]]);
  assert.is(attr(server, 'gw.attempts'), 2);
  assert.is(attr(server, 'gen_ai.provider.name'), 'together');
  assert.not.ok(bodies.some((b) => b.includes(SECRET_PROMPT) || b.includes(SECRET_ANSWER)), 'no content leaves in a trace');
  assert.is(attr(server, 'gen_ai.input.messages'), undefined);
  assert.is(attr(server, 'gen_ai.output.messages'), undefined);
});

test('a refused request ends its span with the error; a malformed traceparent starts a new trace; traces off sends nothing upstream', async () => {
  const res = await chat({ traceparent: 'garbage' }, { model: 'no-such-model' });
  assert.is(res.status, 404);
  const requestId = res.headers.get('x-request-id');
  await waitFor(() => spans.some((s) => attr(s, 'gw.request_id') === requestId), 5_000, 'the refused request\'s span');
  const span = spans.find((s) => attr(s, 'gw.request_id') === requestId)!;
  assert.equal([attr(span, 'http.response.status_code'), attr(span, 'error.type'), span.status.code], [404, 'model_not_found', 2]);
  assert.is(span.parentSpanId, undefined);
  groq.reset();
  const org = (await plain.cli('org', 'create', 'untraced', '--credit', '10')).id;
  const k = (await plain.cli('key', 'create', '--org', org, '--name', 'k')).key;
  const off = await fetch(`${plain.url}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k), traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` },
    body: JSON.stringify({ model: 'llama-3.3-70b-instruct', provider: 'groq', messages: [{ role: 'user', content: 'hi' }] }) });
  assert.is(off.status, 200);
  assert.is(groq.requests[0].headers.traceparent, undefined, 'with traces off the client\'s header is not passed on');
});


test('with captureContent on, a chat request\'s messages and its answer go on the request span in the GenAI conventions\' shape', async () => {
  groq.enqueue({ kind: 'ok', content: SECRET_ANSWER });
  const res = await fetch(`${captured.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(capturedKey),
    body: JSON.stringify({ model: 'llama-3.3-70b-instruct', provider: 'groq',
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: SECRET_PROMPT }] }),
  });
  assert.is(res.status, 200);
  await res.json();
  const span = await requestSpan(res);
  assert.equal(JSON.parse(String(attr(span, 'gen_ai.input.messages'))), [{ role: 'user', parts: [{ type: 'text', content: SECRET_PROMPT }] }]);
  assert.equal(JSON.parse(String(attr(span, 'gen_ai.system_instructions'))), [{ type: 'text', content: 'be brief' }]);
  assert.equal(JSON.parse(String(attr(span, 'gen_ai.output.messages'))),
    [{ role: 'assistant', parts: [{ type: 'text', content: SECRET_ANSWER }], finish_reason: 'stop' }]);
  // Content stays off the attempt spans: one place to find it, and to redact it.
  const attempt = spans.find((s) => s.kind === 3 && s.parentSpanId === span.spanId)!;
  assert.is(attr(attempt, 'gen_ai.input.messages'), undefined);
});

test('with captureContent on, a streamed answer is joined from its deltas, and an Anthropic Messages request is read in its own format', async () => {
  groq.enqueue({ kind: 'stream', chunks: 5 });
  const streamed = await fetch(`${captured.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(capturedKey),
    body: JSON.stringify({ model: 'llama-3.3-70b-instruct', provider: 'groq', stream: true, messages: [{ role: 'user', content: 'count' }] }),
  });
  assert.is(streamed.status, 200);
  await streamed.text();
  const s1 = await requestSpan(streamed);
  assert.equal(JSON.parse(String(attr(s1, 'gen_ai.output.messages'))),
    [{ role: 'assistant', parts: [{ type: 'text', content: streamText(5) }], finish_reason: 'stop' }]);

  groq.enqueue({ kind: 'ok', content: SECRET_ANSWER });
  const msg = await fetch(`${captured.url}/v1/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': capturedKey, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'llama-3.3-70b-instruct', max_tokens: 50, system: 'answer in Hindi',
      messages: [{ role: 'user', content: [{ type: 'text', text: SECRET_PROMPT }] }] }),
  });
  assert.is(msg.status, 200);
  await msg.json();
  const s2 = await requestSpan(msg);
  assert.is(attr(s2, 'gen_ai.operation.name'), 'chat');
  assert.equal(JSON.parse(String(attr(s2, 'gen_ai.input.messages'))), [{ role: 'user', parts: [{ type: 'text', content: SECRET_PROMPT }] }]);
  assert.equal(JSON.parse(String(attr(s2, 'gen_ai.system_instructions'))), [{ type: 'text', content: 'answer in Hindi' }]);
  assert.equal(JSON.parse(String(attr(s2, 'gen_ai.output.messages'))),
    [{ role: 'assistant', parts: [{ type: 'text', content: SECRET_ANSWER }], finish_reason: 'end_turn' }]);
});

test('audio requests are traced: a request span and an attempt span named for the endpoint, billed units, traceparent sent to the provider', async () => {
  for (const endpoint of ['transcriptions', 'translations'] as const) {
    const traceId = endpoint === 'transcriptions' ? 'a'.repeat(32) : 'b'.repeat(32);
    groq.reset();
    const res = await upload(gw, key, endpoint, { traceparent: `00-${traceId}-${'c'.repeat(16)}-01` });
    assert.is(res.status, 200, await res.clone().text());
    await res.text();
    const server = await requestSpan(res);
    assert.is(server.traceId, traceId);
    assert.is(server.parentSpanId, 'c'.repeat(16));
    assert.is(server.name, `${endpoint} whisper-large-v3`);
    assert.equal([attr(server, 'gen_ai.operation.name'), attr(server, 'gen_ai.request.model'), attr(server, 'gen_ai.provider.name'),
      attr(server, 'http.response.status_code'), attr(server, 'gw.attempts')], [endpoint, 'whisper-large-v3', 'groq', 200, 1]);
    // Billed on seconds heard, not tokens: the units, and no token counts that would read as zero tokens.
    assert.ok(Number(attr(server, 'gw.units')) >= 1);
    assert.is(attr(server, 'gen_ai.usage.input_tokens'), undefined);
    const [attempt] = await attemptsOf(server);
    assert.equal([attempt.name, attr(attempt, 'gen_ai.operation.name'), attr(attempt, 'gen_ai.provider.name'), attr(attempt, 'gen_ai.request.model'),
      attr(attempt, 'http.response.status_code')], [`${endpoint} whisper-large-v3`, endpoint, 'groq', 'whisper-large-v3', 200]);
    assert.is(groq.requests[0].headers.traceparent, `00-${traceId}-${attempt.spanId}-01`);
  }

  openai.reset();
  const res = await speak(gw, key);
  assert.is(res.status, 200);
  await res.arrayBuffer();
  const server = await requestSpan(res);
  assert.is(server.parentSpanId, undefined);
  assert.equal([server.name, attr(server, 'gen_ai.operation.name'), attr(server, 'gen_ai.provider.name'), attr(server, 'gw.units'), server.status.code],
    ['speech tts-1', 'speech', 'openai', 'namaste'.length, 1]);
  const [attempt] = await attemptsOf(server);
  assert.equal([attempt.name, attr(attempt, 'gw.units'), attr(attempt, 'http.response.status_code')], ['speech tts-1', 'namaste'.length, 200]);
  assert.is(openai.requests[0].headers.traceparent, `00-${server.traceId}-${attempt.spanId}-01`);
});

test('a failed audio attempt is a failed span and the request span carries its error; traces off, audio sends no traceparent', async () => {
  openai.enqueue({ kind: 'status', status: 503 });
  const res = await speak(gw, key);
  // The only route failed: the gateway's own 502, which the request span reports as the client saw it.
  assert.is(res.status, 502);
  const { error } = await res.json() as { error: { code: string } };
  const server = await requestSpan(res);
  assert.equal([attr(server, 'http.response.status_code'), attr(server, 'error.type'), server.status.code], [502, error.code, 2]);
  const [attempt] = await attemptsOf(server);
  assert.equal([attr(attempt, 'http.response.status_code'), attempt.status.code, attr(attempt, 'gw.units')], [503, 2, undefined]);

  const org = (await plain.cli('org', 'create', 'untraced-audio', '--credit', '10')).id;
  const k = (await plain.cli('key', 'create', '--org', org, '--name', 'k')).key;
  const incoming = { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` };
  groq.reset();
  openai.reset();
  const heard = await upload(plain, k, 'transcriptions', incoming);
  assert.is(heard.status, 200);
  const spoken = await speak(plain, k, incoming);
  assert.is(spoken.status, 200);
  await spoken.arrayBuffer();
  assert.is(groq.requests.length, 1);
  assert.is(groq.requests[0].headers.traceparent, undefined);
  assert.is(openai.requests.length, 1);
  assert.is(openai.requests[0].headers.traceparent, undefined);
});

test('count_tokens has a request span of its own, with the body\'s model and no attempt; a model it cannot count for is the span\'s error', async () => {
  const count = (model: string, headers: Record<string, string> = {}) => fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: SECRET_PROMPT }] }),
  });
  const traceId = 'd'.repeat(32);
  const res = await count('llama-3.3-70b-instruct', { traceparent: `00-${traceId}-${'e'.repeat(16)}-01` });
  assert.is(res.status, 200);
  assert.ok((await res.json() as { input_tokens: number }).input_tokens > 0);
  const server = await requestSpan(res);
  assert.equal([server.traceId, server.parentSpanId, server.name, server.kind, server.status.code],
    [traceId, 'e'.repeat(16), 'count_tokens llama-3.3-70b-instruct', 2, 1]);
  assert.equal([attr(server, 'gen_ai.operation.name'), attr(server, 'gen_ai.request.model'), attr(server, 'http.response.status_code'),
    attr(server, 'gw.attempts'), attr(server, 'gen_ai.provider.name')], ['count_tokens', 'llama-3.3-70b-instruct', 200, 0, undefined]);
  // No upstream attempt; and nothing else lands in its trace later.
  const unknown = await count('no-such-model');
  assert.is(unknown.status, 404);
  const refused = await requestSpan(unknown);
  assert.equal([refused.name, attr(refused, 'http.response.status_code'), attr(refused, 'error.type'), refused.status.code],
    ['count_tokens no-such-model', 404, 'model_not_found', 2]);
  assert.equal(ofTrace(traceId).map((s) => s.spanId), [server.spanId]);
});

test('the MCP chat tool: the /mcp request\'s span named for its tool call, the tool\'s inference request under it, its attempt under that', async () => {
  const rpc = (message: Record<string, unknown>, headers: Record<string, string> = {}) => fetch(`${gw.url}/mcp`, {
    method: 'POST', headers: { ...bearer(key), accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
  const traceId = 'f'.repeat(32);
  groq.reset();
  const res = await rpc({ method: 'tools/call', params: { name: 'chat', arguments: {
    model: 'llama-3.3-70b-instruct', provider: 'groq', messages: [{ role: 'user', content: 'namaste' }] } } },
  { traceparent: `00-${traceId}-${'9'.repeat(16)}-01` });
  assert.is(res.status, 200);
  const result = (await res.json() as { result: { isError?: boolean; structuredContent: { request_id: string; provider: string } } }).result;
  assert.is(result.isError, undefined);
  assert.is(result.structuredContent.provider, 'groq');
  await waitFor(() => ofTrace(traceId).length === 3, 5_000, 'the /mcp span, the tool\'s request span and its attempt\'s');
  const call = ofTrace(traceId).find((s) => attr(s, 'gw.request_id') === res.headers.get('x-request-id'))!;
  assert.equal([call.kind, call.parentSpanId, call.name, attr(call, 'mcp.method.name'), attr(call, 'gen_ai.tool.name'),
    attr(call, 'gen_ai.operation.name'), attr(call, 'http.response.status_code')],
  [2, '9'.repeat(16), 'tools/call chat', 'tools/call', 'chat', 'execute_tool', 200]);
  const inference = ofTrace(traceId).find((s) => attr(s, 'gw.request_id') === result.structuredContent.request_id)!;
  assert.equal([inference.kind, inference.parentSpanId, inference.name, attr(inference, 'gen_ai.operation.name'),
    attr(inference, 'gen_ai.provider.name'), attr(inference, 'gw.attempts'), inference.status.code],
  [2, call.spanId, 'chat llama-3.3-70b-instruct', 'chat', 'groq', 1, 1]);
  const attempt = ofTrace(traceId).find((s) => s.kind === 3)!;
  assert.equal([attempt.parentSpanId, attr(attempt, 'gen_ai.provider.name'), attr(attempt, 'http.response.status_code')], [inference.spanId, 'groq', 200]);
  assert.is(groq.requests[0].headers.traceparent, `00-${traceId}-${attempt.spanId}-01`);

  // Another method is named for itself, with no GenAI operation; the tool refusing (no such model) is the inference span's error.
  const listed = await rpc({ method: 'tools/list' });
  assert.is(listed.status, 200);
  const list = await requestSpan(listed);
  assert.equal([list.name, attr(list, 'mcp.method.name'), attr(list, 'gen_ai.operation.name'), attr(list, 'gen_ai.tool.name')],
    ['tools/list', 'tools/list', undefined, undefined]);
  const refused = await rpc({ method: 'tools/call', params: { name: 'chat', arguments: { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] } } });
  assert.is((await refused.json() as { result: { isError: boolean } }).result.isError, true);
  const outer = await requestSpan(refused);
  const inner = (await waitFor(() => spans.find((s) => s.parentSpanId === outer.spanId), 5_000, 'the refused tool request\'s span'))!;
  assert.equal([inner.traceId, attr(inner, 'http.response.status_code'), attr(inner, 'error.type'), inner.status.code],
    [outer.traceId, 404, 'model_not_found', 2]);
});

test('an attempt an open circuit refused has a span of its own (circuit_open, nothing sent), a sibling of the attempt that served', async () => {
  // One failure opens a route's circuit on this gateway.
  const tripping = await startGateway({ providers: { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' } },
    tracing: { otlpUrl: `http://127.0.0.1:${(collector.address() as AddressInfo).port}` },
    breaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 600_000 } });
  try {
    const org = (await tripping.cli('org', 'create', 'tripping', '--credit', '10')).id;
    const k = (await tripping.cli('key', 'create', '--org', org, '--name', 'k')).key;
    const ask = (provider: string | string[], headers: Record<string, string> = {}) => fetch(`${tripping.url}/v1/chat/completions`, {
      method: 'POST', headers: { ...bearer(k), ...headers },
      body: JSON.stringify({ model: 'llama-3.3-70b-instruct', provider, messages: [{ role: 'user', content: 'hi' }] }),
    });
    together.reset();
    together.enqueue({ kind: 'status', status: 503 });
    const failed = await ask('together');
    assert.is(failed.status, 502);
    await failed.text();
    assert.is(together.requests.length, 1);

    groq.reset();
    const traceId = '7'.repeat(32);
    const res = await ask(['together', 'groq'], { traceparent: `00-${traceId}-${'8'.repeat(16)}-01` });
    assert.is(res.status, 200);
    assert.is(res.headers.get('x-gw-provider'), 'groq');
    await res.json();
    assert.is(together.requests.length, 1, 'the open circuit sent nothing to together');
    const server = await requestSpan(res);
    const attempts = (await attemptsOf(server, 2)).sort((a, b) => Number(attr(a, 'gw.attempt')) - Number(attr(b, 'gw.attempt')));
    assert.equal(attempts.map((s) => [s.name, attr(s, 'gen_ai.provider.name'), attr(s, 'error.type'), s.status.code, s.status.message]),
      [['chat llama-3.3-70b-instruct', 'together', 'circuit_open', 2, 'circuit_open'], [`chat ${attr(attempts[1], 'gen_ai.request.model')}`, 'groq', undefined, 1, undefined]]);
    assert.equal(attempts.map((s) => s.parentSpanId), [server.spanId, server.spanId]);
    assert.is.not(attempts[0].spanId, attempts[1].spanId);
    assert.ok(BigInt(attempts[0].endTimeUnixNano) >= BigInt(attempts[0].startTimeUnixNano));
    assert.equal([attr(server, 'gw.attempts'), attr(server, 'gen_ai.provider.name'), server.status.code], [2, 'groq', 1]);
    // The provider that was called was sent the serving attempt's span, not the refused one's.
    assert.is(groq.requests[0].headers.traceparent, `00-${traceId}-${attempts[1].spanId}-01`);
  } finally {
    await tripping.cleanup();
  }
});

test('/metrics counts the spans the collector took and those a refusing collector lost; traces off, no such series', async () => {
  const scrape = async (g: GatewayProcess) => parsePromText(await (await fetch(`${g.url}/metrics`)).text());
  const exported = async () => sampleValue(await scrape(gw), 'gw_trace_spans_total', { outcome: 'exported' }) ?? 0;
  const before = await exported();
  const res = await chat();
  assert.is(res.status, 200);
  await requestSpan(res);
  // The request's span and its attempt's, taken by the collector (other tests' spans may land too).
  await waitFor(async () => await exported() >= before + 2, 5_000, 'exported spans counted');
  assert.is(sampleValue(await scrape(gw), 'gw_trace_spans_total', { outcome: 'dropped' }), 0);
  assert.is(sampleValue(await scrape(plain), 'gw_trace_spans_total', { outcome: 'exported' }), undefined);

  // A collector that answers 503: the batch is lost, counted, and the request was served regardless.
  const refusing = createServer((req, r) => req.resume().on('end', () => r.writeHead(503).end()));
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
  const lossy = await startGateway({ providers: { groq: { baseUrl: groq.url, apiKey: 'g' } },
    tracing: { otlpUrl: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}` } });
  try {
    const org = (await lossy.cli('org', 'create', 'lossy', '--credit', '10')).id;
    const k = (await lossy.cli('key', 'create', '--org', org, '--name', 'k')).key;
    const ok = await fetch(`${lossy.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k),
      body: JSON.stringify({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }] }) });
    assert.is(ok.status, 200);
    await waitFor(async () => (sampleValue(await scrape(lossy), 'gw_trace_spans_total', { outcome: 'dropped' }) ?? 0) >= 2, 10_000, 'dropped spans counted');
    assert.is(sampleValue(await scrape(lossy), 'gw_trace_spans_total', { outcome: 'exported' }), 0);
  } finally {
    await lossy.cleanup();
    await new Promise((r) => refusing.close(r));
  }
});

test.run();
