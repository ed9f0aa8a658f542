import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { query, waitForValue } from '../support/ledger.js';
import { bearer, readSse } from '../support/wait.js';
import { signIn } from '../support/session.js';

// Guardrails through the real gateway: a mock provider records what it was sent, so a test can
// tell that the redacted text reached it and the original never did.
let gw: GatewayProcess;
let mock: MockProvider;
let key: string;
const LLAMA = 'llama-3.3-70b-instruct';
/** The client's bytes as groq is sent them: only the model id is swapped for groq's own. */
const asSent = (text: string): string => text.replace(LLAMA, 'llama-3.3-70b-versatile');
const AADHAAR = '2341 2341 2346';
const PAN = 'ABCPE1234F';
const CARD = '4111 1111 1111 1111';

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq' }, deepinfra: { baseUrl: mock.url, apiKey: 'sk-di' },
    openai: { baseUrl: mock.url, apiKey: 'sk-oa' } } });
  ({ key } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

function chat(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(key), ...headers },
    body: JSON.stringify({ model: LLAMA, ...body }) });
}

function ledgerRows(requestId: string): Promise<any[]> {
  return waitForValue(() => {
    const rows = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId) as any[]);
    return rows.length > 0 ? rows : null;
  }, 5_000, `ledger rows of ${requestId}`);
}

const said = `My Aadhaar is ${AADHAAR} and my PAN is ${PAN}.`;

test('with no guardrail the body reaches the provider byte for byte and the answer has no guardrail header', async () => {
  const text = JSON.stringify({ model: LLAMA, messages: [{ role: 'user', content: said }] });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: text });
  assert.is(r.status, 200, await r.text());
  assert.is(mock.requests[0].rawBody, asSent(text));
  assert.is(r.headers.get('x-gw-guardrails'), null);
});

test('the x-gw-guardrails header redacts before the request leaves: the provider never sees the original', async () => {
  const r = await chat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: said }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ pan: PAN }) } }] },
    { role: 'tool', tool_call_id: 't1', content: 'found' }] },
    { 'x-gw-guardrails': 'redact=aadhaar,pan' });
  assert.is(r.status, 200, await r.text());
  const up = mock.requests[0];
  assert.equal(up.body.messages[1].content, [{ type: 'text', text: 'My Aadhaar is [REDACTED:aadhaar] and my PAN is [REDACTED:pan].' }]);
  assert.equal(JSON.parse(up.body.messages[2].tool_calls[0].function.arguments), { pan: '[REDACTED:pan]' });
  assert.is(up.body.messages[0].content, 'Be brief.');
  assert.not.ok(up.rawBody.includes('2341') || up.rawBody.includes(PAN), up.rawBody);
  assert.is(r.headers.get('x-gw-guardrails'), 'redacted=aadhaar,pan');
  const [row] = await ledgerRows(r.headers.get('x-request-id')!);
  assert.is(row.guardrail, 'redacted=aadhaar,pan');
});

test('a guardrail that finds nothing leaves the client\'s bytes as they were and says nothing', async () => {
  const text = JSON.stringify({ model: LLAMA, messages: [{ role: 'user', content: 'Aadhaar 2341 2341 2345 is a wrong one' }] });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(key), 'x-gw-guardrails': 'redact=all' }, body: text });
  assert.is(r.status, 200, await r.text());
  assert.is(mock.requests[0].rawBody, asSent(text));
  assert.is(r.headers.get('x-gw-guardrails'), null);
});

test('a block policy in the body refuses the request with 400 guardrail_blocked naming the detector, sends nothing, and is in the ledger', async () => {
  const r = await chat({ messages: [{ role: 'user', content: `charge ${CARD} please` }], guardrails: { block: ['card'], redact: ['pan'] } });
  const body = await r.json() as any;
  assert.is(r.status, 400);
  assert.is(body.error.code, 'guardrail_blocked');
  assert.is(body.error.type, 'invalid_request_error');
  assert.match(body.error.message, /'card'/);
  assert.is(r.headers.get('x-gw-guardrails'), 'blocked=card');
  assert.is(mock.requests.length, 0);
  const [row] = await ledgerRows(r.headers.get('x-request-id')!);
  assert.equal([row.status, row.error_code, row.guardrail, row.billable, row.cost_micros], [400, 'guardrail_blocked', 'blocked=card', 0, 0]);
});

test('the body extension is cut before forwarding and wins over the header', async () => {
  const r = await chat({ messages: [{ role: 'user', content: said }], guardrails: 'redact=pan' }, { 'x-gw-guardrails': 'block=aadhaar' });
  assert.is(r.status, 200, await r.text());
  const up = mock.requests[0];
  assert.is(up.body.guardrails, undefined);
  assert.is(up.body.messages[0].content, `My Aadhaar is ${AADHAAR} and my PAN is [REDACTED:pan].`);
});

test('a policy that does not parse is a 400 bad_request naming what is wrong', async () => {
  const h = await chat({ messages: [{ role: 'user', content: 'hi' }] }, { 'x-gw-guardrails': 'redact=passport' });
  const hb = await h.json() as any;
  assert.is(h.status, 400);
  assert.is(hb.error.code, 'bad_request');
  assert.match(hb.error.message, /x-gw-guardrails.*unknown detector 'passport'/);
  const b = await chat({ messages: [{ role: 'user', content: 'hi' }], guardrails: { redact: 'pan' } });
  assert.is(b.status, 400);
  assert.match((await b.json() as any).error.message, /Invalid 'guardrails'/);
  // A name like a member of every object is an unknown detector too (it was a 500: Object.prototype's function was iterated).
  const c = await chat({ messages: [{ role: 'user', content: 'hi' }] }, { 'x-gw-guardrails': 'block=constructor' });
  assert.equal([c.status, (await c.json() as any).error.message.includes("unknown detector 'constructor'")], [400, true]);
  assert.is(mock.requests.length, 0);
});

test('embeddings inputs are redacted, string by string', async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-guardrails': 'redact=email,mobile' } });
  await client.embeddings.create({ model: 'bge-m3', input: ['mail priya@example.in', 'call +91 98765 43210', 'nothing'], encoding_format: 'float' });
  assert.equal(mock.requests[0].body.input, ['mail [REDACTED:email]', 'call [REDACTED:mobile]', 'nothing']);
});

test('the text of a speech request is checked as a chat message is: redacted before it is spoken, or refused', async () => {
  const speak = (input: string, policy: string) => fetch(`${gw.url}/v1/audio/speech`, { method: 'POST',
    headers: { ...bearer(key), 'x-gw-guardrails': policy }, body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input }) });
  const ok = await speak('call me on 9876543210', 'redact=mobile');
  assert.is(ok.status, 200);
  await ok.arrayBuffer();
  assert.is(mock.requests[0].body.input, 'call me on [REDACTED:mobile]');
  const [row] = await ledgerRows(ok.headers.get('x-request-id')!);
  assert.is(row.guardrail, 'redacted=mobile');
  mock.reset();
  const refused = await speak('my card is 4111 1111 1111 1111', 'block=card');
  assert.equal([refused.status, (await refused.json() as any).error.code], [400, 'guardrail_blocked']);
  assert.is(refused.headers.get('x-gw-guardrails'), 'blocked=card');
  assert.is(mock.requests.length, 0);
  const [blocked] = await ledgerRows(refused.headers.get('x-request-id')!);
  assert.equal([blocked.endpoint, blocked.status, blocked.error_code, blocked.provider, blocked.billable], ['speech', 400, 'guardrail_blocked', null, 0]);
});

test('a transcription\'s prompt is redacted before it leaves and, with outputs, its transcript before the client reads it; a refusal is recorded', async () => {
  const transcribe = (prompt: string, policy: string, format = 'json') => {
    const f = new FormData();
    f.append('file', new Blob([Buffer.alloc(2_000, 7)], { type: 'audio/mpeg' }), 'call.mp3');
    f.append('model', 'whisper-large-v3');
    f.append('prompt', prompt);
    f.append('response_format', format);
    // No JSON content type here: fetch sets the form's own, with its boundary.
    return fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-gw-guardrails': policy }, body: f });
  };
  mock.enqueue({ kind: 'ok', content: `my PAN is ${PAN}, call me` });
  const r = await transcribe('caller +91 98765 43210', 'redact=mobile,pan;outputs');
  assert.is(r.status, 200);
  assert.is((await r.json() as { text: string }).text, 'my PAN is [REDACTED:pan], call me');
  assert.is(mock.requests[0].body.prompt, 'caller [REDACTED:mobile]');
  assert.not.ok(mock.requests[0].rawBody.includes('98765'));
  assert.match(r.headers.get('x-gw-guardrails')!, /redacted=.*mobile/);
  assert.match(r.headers.get('x-gw-guardrails')!, /pan/);
  mock.enqueue({ kind: 'ok', content: `PAN ${PAN}` });
  const text = await transcribe('hello', 'redact=pan;outputs', 'text');
  assert.is(await text.text(), 'PAN [REDACTED:pan]');
  mock.reset();
  const refused = await transcribe(`card ${CARD}`, 'block=card');
  assert.equal([refused.status, (await refused.json() as any).error.code], [400, 'guardrail_blocked']);
  assert.is(mock.requests.length, 0);
  const [row] = await ledgerRows(refused.headers.get('x-request-id')!);
  assert.equal([row.endpoint, row.status, row.error_code, row.guardrail], ['transcriptions', 400, 'guardrail_blocked', 'blocked=card']);
});

test('Responses input is redacted before it is translated and sent', async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-guardrails': 'redact=india' } });
  await client.responses.create({ model: LLAMA, input: said, store: false });
  const sent = JSON.stringify(mock.requests[0].body.messages);
  assert.ok(sent.includes('[REDACTED:aadhaar]') && sent.includes('[REDACTED:pan]'), sent);
  assert.not.ok(sent.includes(PAN));
});

test('on /v1/messages the system prompt and content blocks are redacted, and a block is an Anthropic-shaped 400', async () => {
  const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0, defaultHeaders: { 'x-gw-guardrails': 'redact=india;block=secret' } });
  await client.messages.create({ model: LLAMA, max_tokens: 32, system: `Customer PAN ${PAN}`,
    messages: [{ role: 'user', content: [{ type: 'text', text: `UPI ramesh@okhdfcbank, IFSC HDFC0001234` }] }] });
  const sent = mock.requests[0].body.messages;
  assert.is(sent[0].content, 'Customer PAN [REDACTED:pan]');
  assert.match(JSON.stringify(sent[1].content), /UPI \[REDACTED:upi\], IFSC \[REDACTED:ifsc\]/);
  mock.reset();
  const r = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key,
    'x-gw-guardrails': 'block=secret' }, body: JSON.stringify({ model: LLAMA, max_tokens: 32, messages: [{ role: 'user', content: 'key AKIAIOSFODNN7EXAMPLE' }] }) });
  const e = await r.json() as any;
  assert.is(r.status, 400);
  assert.is(e.type, 'error');
  assert.is(e.error.type, 'invalid_request_error');
  assert.match(e.error.message, /'secret' guardrail/);
  assert.is(mock.requests.length, 0);
});

test('with outputs, a whole answer is redacted before the client gets it', async () => {
  mock.enqueue({ kind: 'ok', content: `Your PAN is ${PAN} and card ${CARD}.` });
  const r = await chat({ messages: [{ role: 'user', content: 'what is my PAN?' }] }, { 'x-gw-guardrails': 'redact=pan,card;outputs' });
  const body = await r.json() as any;
  assert.is(r.status, 200);
  assert.is(body.choices[0].message.content, 'Your PAN is [REDACTED:pan] and card [REDACTED:card].');
  const [row] = await ledgerRows(r.headers.get('x-request-id')!);
  assert.is(row.guardrail, 'redacted=pan,card');
});

test('with outputs and block, an answer carrying the detector is refused with 400 guardrail_blocked and still billed', async () => {
  mock.enqueue({ kind: 'ok', content: `Your card is ${CARD}.` });
  const r = await chat({ messages: [{ role: 'user', content: 'card?' }] }, { 'x-gw-guardrails': 'block=card;outputs' });
  const body = await r.json() as any;
  assert.is(r.status, 400);
  assert.is(body.error.code, 'guardrail_blocked');
  assert.match(body.error.message, /answer was blocked by the 'card'/);
  assert.is(r.headers.get('x-gw-guardrails'), 'blocked=card');
  const [row] = await ledgerRows(r.headers.get('x-request-id')!);
  assert.equal([row.billable, row.guardrail], [1, 'blocked=card']);
  assert.ok(row.cost_micros > 0);
});

/** SSE events of a chat stream whose content arrives in the given pieces, each in its own write. */
function streamParts(pieces: string[]): string[] {
  const head = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"llama","choices":';
  return [
    ...pieces.map((p) => `data: ${head}[{"index":0,"delta":{"content":${JSON.stringify(p)}},"finish_reason":null}]}\n\n`),
    `data: ${head}[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
    `data: ${head}[],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}}\n\n`,
    'data: [DONE]\n\n',
  ];
}

function streamedText(events: string[]): string {
  return events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e).choices?.[0]?.delta?.content ?? '').join('');
}

test('with outputs, a stream is redacted even where a match is split across chunks (and events)', async () => {
  mock.enqueue({ kind: 'parts', parts: streamParts(['Sure. Your Aadhaar is 2341 23', '41 2346, PAN ABC', 'PE', '1234F, card 4111 1111 ', '1111 1111',
    ' and that is all the details we hold about you in our records today.']) });
  const r = await chat({ messages: [{ role: 'user', content: 'tell me' }], stream: true }, { 'x-gw-guardrails': 'redact=all;outputs' });
  assert.is(r.status, 200);
  const events = await readSse(r);
  const text = streamedText(events);
  assert.is(text, 'Sure. Your Aadhaar is [REDACTED:aadhaar], PAN [REDACTED:pan], card [REDACTED:card] and that is all the details we hold about you in our records today.');
  assert.not.ok(events.join('').includes('2346') || events.join('').includes('1234F'));
  assert.is(events[events.length - 1], '[DONE]');
  const [row] = await ledgerRows(r.headers.get('x-request-id')!);
  assert.is(row.guardrail, 'redacted=aadhaar,pan,card');
});

test('with outputs, a stream that ends without a finish reason still gets its held-back text, redacted', async () => {
  const head = '{"id":"c2","object":"chat.completion.chunk","created":1,"model":"llama","choices":';
  mock.enqueue({ kind: 'parts', parts: [`data: ${head}[{"index":0,"delta":{"content":"mail priya@exam"},"finish_reason":null}]}\n\n`,
    `data: ${head}[{"index":0,"delta":{"content":"ple.in"},"finish_reason":null}]}\n\n`, 'data: [DONE]\n\n'] });
  const r = await chat({ messages: [{ role: 'user', content: 'x' }], stream: true }, { 'x-gw-guardrails': 'redact=email;outputs' });
  assert.is(streamedText(await readSse(r)), 'mail [REDACTED:email]');
});

test('with outputs, a streamed tool call\'s arguments are redacted even where a match is split across fragments', async () => {
  const head = '{"id":"c3","object":"chat.completion.chunk","created":1,"model":"llama","choices":';
  const frag = (delta: unknown, finish: string | null = null) => `data: ${head}[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
  mock.enqueue({ kind: 'parts', parts: [
    frag({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'kyc', arguments: '' } }] }),
    frag({ tool_calls: [{ index: 0, function: { arguments: '{"aadhaar":"2341 23' } }] }),
    frag({ tool_calls: [{ index: 0, function: { arguments: '41 2346"}' } }] }),
    frag({}, 'tool_calls'), 'data: [DONE]\n\n'] });
  const r = await chat({ messages: [{ role: 'user', content: 'x' }], stream: true, tools: [{ type: 'function', function: { name: 'kyc', parameters: {} } }] },
    { 'x-gw-guardrails': 'redact=aadhaar;outputs' });
  assert.is(r.status, 200);
  const events = await readSse(r);
  const args = events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e).choices?.[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '').join('');
  assert.is(args, '{"aadhaar":"[REDACTED:aadhaar]"}');
  assert.not.ok(events.join('').includes('2346'));
  const [row] = await ledgerRows(r.headers.get('x-request-id')!);
  assert.is(row.guardrail, 'redacted=aadhaar');
});

test('with outputs and block, a stream is ended with the guardrail_blocked error event and [DONE]', async () => {
  mock.enqueue({ kind: 'parts', parts: streamParts(['here is the key: sk-proj-', 'AbCdEfGhIjKlMnOpQrStUvWx12 ok', ' and some more words to pass the hold of the guard ........']) });
  const r = await chat({ messages: [{ role: 'user', content: 'key?' }], stream: true }, { 'x-gw-guardrails': 'block=secret;outputs' });
  const events = await readSse(r);
  const err = events.map((e) => e === '[DONE]' ? null : JSON.parse(e)).find((e) => e?.error !== undefined);
  assert.is(err?.error.code, 'guardrail_blocked', events.join('\n'));
  assert.not.ok(events.join('').includes('AbCdEfGh'));
  assert.is(events[events.length - 1], '[DONE]');
});

test('the Anthropic stream of a guarded answer is redacted too', async () => {
  mock.enqueue({ kind: 'parts', parts: streamParts(['PAN is ABCP', 'E1234F.']) });
  const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0, defaultHeaders: { 'x-gw-guardrails': 'redact=pan;outputs' } });
  const msg = await client.messages.stream({ model: LLAMA, max_tokens: 32, messages: [{ role: 'user', content: 'pan?' }] }).finalMessage();
  assert.is((msg.content[0] as any).text, 'PAN is [REDACTED:pan].');
});

test('an org\'s policy applies to its keys at once, a key\'s own wins over it, and a request\'s own over both', async () => {
  const owner = await signIn(gw, 'guard-owner@example.com');
  const mint = async (name: string) => (await (await owner.send('POST', '/me/keys', { name })).json() as any);
  const [a, b] = [await mint('a'), await mint('b')];
  const ask = async (k: string, headers: Record<string, string> = {}) => {
    mock.reset();
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(k), ...headers },
      body: JSON.stringify({ model: LLAMA, messages: [{ role: 'user', content: `PAN ${PAN}` }] }) });
    const body = await r.json() as any;
    return { status: r.status, code: body.error?.code, sent: mock.requests[0]?.body.messages[0].content };
  };
  // Both keys are cached by the data plane before any policy is set.
  assert.equal(await ask(a.key), { status: 200, code: undefined, sent: `PAN ${PAN}` });
  assert.equal(await ask(b.key), { status: 200, code: undefined, sent: `PAN ${PAN}` });

  const org = await owner.send('PATCH', '/me/org', { guardrails: 'redact=pan' });
  assert.is(org.status, 200);
  assert.is((await org.json() as any).org.guardrails, 'redact=pan');
  assert.equal(await ask(a.key), { status: 200, code: undefined, sent: 'PAN [REDACTED:pan]' });

  const patched = await owner.send('PATCH', `/me/keys/${a.id}`, { guardrails: 'block = pan' });
  assert.is(patched.status, 200);
  assert.is((await patched.json() as any).guardrails, 'block=pan', 'stored in its canonical form');
  assert.equal(await ask(a.key), { status: 400, code: 'guardrail_blocked', sent: undefined });
  assert.equal(await ask(b.key), { status: 200, code: undefined, sent: 'PAN [REDACTED:pan]' });
  assert.equal(await ask(a.key, { 'x-gw-guardrails': 'off' }), { status: 200, code: undefined, sent: `PAN ${PAN}` });

  const list = await (await owner.get('/me/keys')).json() as any;
  assert.equal(list.data.map((k: any) => [k.name, k.guardrails]), [['a', 'block=pan'], ['b', null]]);
  const bad = await owner.send('PATCH', `/me/keys/${a.id}`, { guardrails: 'redact=passport' });
  assert.is(bad.status, 400);
  assert.match((await bad.json() as any).error.message, /unknown detector 'passport'/);

  assert.is((await owner.send('PATCH', '/me/org', { guardrails: null })).status, 200);
  assert.equal(await ask(b.key), { status: 200, code: undefined, sent: `PAN ${PAN}` });
});

test('the gateway\'s configured default applies to requests that set no policy, and a bad one stops the start', async () => {
  const other = await startGateway({ guardrails: { default: 'redact=email' }, providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq' } } });
  try {
    const { key: k } = await other.orgAndKey();
    const r = await fetch(`${other.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k),
      body: JSON.stringify({ model: LLAMA, messages: [{ role: 'user', content: 'mail priya@example.in' }] }) });
    assert.is(r.status, 200);
    assert.is(mock.requests[0].body.messages[0].content, 'mail [REDACTED:email]');
    assert.is(r.headers.get('x-gw-guardrails'), 'redacted=email');
  } finally {
    await other.cleanup();
  }
  let refused = '';
  try {
    const bad = await startGateway({ guardrails: { default: 'redact=passport' } });
    await bad.cleanup();
  } catch (e) {
    refused = String(e);
  }
  assert.match(refused, /guardrails\/default/);
});

test.run();
