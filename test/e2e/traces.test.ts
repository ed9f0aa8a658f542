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
  [groq, together] = await Promise.all([startMockProvider(), startMockProvider()]);
  const providers = { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' } };
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
  await Promise.all([gw.cleanup(), plain.cleanup(), captured.cleanup(), groq.close(), together.close()]);
  await new Promise((r) => collector.close(r));
});

const chat = (headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) => fetch(`${gw.url}/v1/chat/completions`, {
  method: 'POST', headers: { ...bearer(key), ...headers },
  body: JSON.stringify({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: SECRET_PROMPT }], ...extra }),
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

/** The request span a gateway exported for the answer `res`. */
async function requestSpan(res: Response): Promise<OtlpSpan> {
  const requestId = res.headers.get('x-request-id');
  return (await waitFor(() => spans.find((s) => s.kind === 2 && attr(s, 'gw.request_id') === requestId), 5_000, 'the request span'))!;
}

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
