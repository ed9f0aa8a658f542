// Speech to text and text to speech end to end: the openai SDK and raw fetch against the real
// gateway, with mock providers on 127.0.0.1 that read the upload with their own form parser.
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI, { toFile } from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { balanceMismatches, query, waitForValue } from '../support/ledger.js';
import { MOCK_AUDIO_SECONDS, speechAudio, startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer } from '../support/wait.js';
import { wav } from '../support/wav-file.js';

/** whisper-large-v3: ₹0.163 a minute, billed by the second. tts-1: ₹1,320 per 1M characters. */
const WHISPER_PER_S = 0.163e6 / 60;
const TTS_PER_CHAR = 1320;
const MAX_FILE = 256 * 1024;
let gw: GatewayProcess;
let groq: MockProvider;
let local: MockProvider;
let openai: MockProvider;
let sarvam: MockProvider;
let orgId: string;
let key: string;
let client: OpenAI;

test.before(async () => {
  [groq, local, openai, sarvam] = await Promise.all([startMockProvider(), startMockProvider(), startMockProvider(), startMockProvider()]);
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    audio: { maxFileBytes: MAX_FILE },
    providers: {
      groq: { baseUrl: groq.url, apiKey: 'gk' },
      // Self-hosted: turned on by naming where it runs; said to run in India for data_policy.
      speaches: { baseUrl: local.url, residency: 'in' },
      openai: { baseUrl: openai.url, apiKey: 'ok' },
      'sarvam-speech': { baseUrl: sarvam.url, apiKey: 'sv-key' },
    },
  });
  ({ orgId, key } = await gw.orgAndKey({ credit: 100 }));
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([groq.close(), local.close(), openai.close(), sarvam.close()]);
});
test.before.each(() => {
  groq.reset();
  local.reset();
  openai.reset();
  sarvam.reset();
});

function form(fields: Record<string, string | string[]>, file: Buffer | null, filename = 'speech.wav'): FormData {
  const f = new FormData();
  if (file !== null) f.append('file', new Blob([file], { type: 'audio/wav' }), filename);
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) f.append(k, x);
  return f;
}

const transcribe = (f: FormData | string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body: f });
const speak = (body: Record<string, unknown>) =>
  fetch(`${gw.url}/v1/audio/speech`, { method: 'POST', headers: bearer(key), body: JSON.stringify(body) });
const rowsOf = (requestId: string, n = 1) => waitForValue(() => {
  const rows = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId) as any[]);
  return rows.length >= n && rows;
}, 5_000, `the ledger rows of ${requestId}`);
const balance = () => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number);
async function errorOf(r: Response): Promise<[number, string, string]> {
  const e = (await r.json() as any).error;
  return [r.status, e.code, e.message];
}

test('a transcription through the openai SDK reaches the provider intact and is billed for the seconds it reports', async () => {
  const audio = wav(2.5);
  const before = balance();
  const { data, response } = await client.audio.transcriptions.create({
    file: await toFile(audio, 'hello.wav', { type: 'audio/wav' }), model: 'whisper-large-v3', language: 'hi',
  }).withResponse();
  assert.is(data.text, 'mock transcript');
  assert.is(response.headers.get('x-gw-provider'), 'groq');
  const sent = groq.requests[0];
  assert.is(sent.path, '/v1/audio/transcriptions');
  assert.is(sent.headers.authorization, 'Bearer gk');
  assert.ok(sent.headers['content-type'].startsWith('multipart/form-data; boundary=gw-'));
  assert.equal(Object.keys(sent.body).sort(), ['file', 'language', 'model']);
  assert.is(sent.body.model, 'whisper-large-v3');
  assert.is(sent.body.language, 'hi');
  assert.is(sent.body.file.filename, 'hello.wav');
  assert.is(sent.body.file.type, 'audio/wav');
  assert.ok(audio.equals(sent.body.file.bytes), 'the file arrives byte for byte');

  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!);
  const seconds = Math.ceil(MOCK_AUDIO_SECONDS);
  assert.equal([row.endpoint, row.units, row.prompt_tokens, row.billable, row.usage_estimated, row.status],
    ['transcriptions', seconds, 0, 1, 0, 200]);
  assert.is(row.cost_micros, Math.round(seconds * WHISPER_PER_S));
  await waitForValue(() => balance() === before - row.cost_micros, 5_000, 'the debit');
});

test('translations to English through the openai SDK: the same upload and billing, only on models that translate', async () => {
  const audio = wav(3);
  const { data, response } = await client.audio.translations.create({
    file: await toFile(audio, 'namaste.wav', { type: 'audio/wav' }), model: 'whisper-large-v3', response_format: 'verbose_json',
  }).withResponse();
  assert.equal([(data as any).task, data.text], ['translate', 'mock transcript']);
  assert.is(response.headers.get('x-gw-provider'), 'groq');
  const sent = groq.requests[0];
  assert.is(sent.path, '/v1/audio/translations');
  assert.equal([sent.body.model, sent.body.response_format], ['whisper-large-v3', 'verbose_json']);
  assert.ok(audio.equals(sent.body.file.bytes), 'the file arrives byte for byte');
  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.endpoint, row.units, row.billable], ['translations', Math.ceil(MOCK_AUDIO_SECONDS), 1]);
  assert.is(row.cost_micros, Math.round(Math.ceil(MOCK_AUDIO_SECONDS) * WHISPER_PER_S));

  // A model that only transcribes is refused before any provider is called, naming the ones that translate.
  const refused = await fetch(`${gw.url}/v1/audio/translations`, {
    method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form({ model: 'whisper-large-v3-turbo' }, wav(1)),
  });
  const [status, code, message] = await errorOf(refused);
  assert.equal([status, code], [400, 'bad_request']);
  assert.match(message, /does not translate speech; these do: whisper-1, whisper-large-v3/);
  assert.is(groq.requests.length, 1);
  const listed = (await (await fetch(`${gw.url}/v1/models`)).json() as any).data;
  assert.equal(listed.filter((m: any) => m.translates).map((m: any) => m.id), ['whisper-1', 'whisper-large-v3']);
  assert.is(listed.find((m: any) => m.id === 'saaras-v3').translates, false);
  assert.not.ok('translates' in listed.find((m: any) => m.kind === 'chat'));
});

test('without a figure from the provider the WAV header gives the length; an unknown container is estimated by size and flagged', async () => {
  groq.enqueue({ kind: 'ok', usage: null });
  const r = await transcribe(form({ model: 'whisper-large-v3', response_format: 'verbose_json' }, wav(2.5)));
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-usage'), null);
  assert.is((await r.json() as any).text, 'mock transcript');
  const [row] = await rowsOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.units, row.usage_estimated], [3, 0]);

  groq.enqueue({ kind: 'ok', usage: null });
  const opaque = Buffer.alloc(40_000, 0x42); // no container the gateway reads: 40,000 bytes at 16,000 a second
  const e = await transcribe(form({ model: 'whisper-large-v3' }, opaque, 'clip.aac'));
  assert.is(e.status, 200);
  assert.is(e.headers.get('x-gw-usage'), 'estimated');
  const [estimated] = await rowsOf(e.headers.get('x-gw-request-id')!);
  assert.equal([estimated.units, estimated.usage_estimated], [3, 1]);
});

test('text answers pass through as the provider wrote them', async () => {
  groq.enqueue({ kind: 'ok', content: 'नमस्ते, यह एक परीक्षण है' });
  const text = await client.audio.transcriptions.create({
    file: await toFile(wav(1), 'a.wav'), model: 'whisper-large-v3', response_format: 'text',
  });
  assert.is(String(text).trim(), 'नमस्ते, यह एक परीक्षण है');
});

test('a failing route fails over to the self-hosted server, and both attempts are in the ledger', async () => {
  groq.enqueue({ kind: 'status', status: 503 });
  const r = await transcribe(form({ model: 'whisper-large-v3-turbo', prompt: 'Hindi names' }, wav(1)));
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'speaches');
  assert.is(local.requests[0].body.model, 'deepdml/faster-whisper-large-v3-turbo-ct2');
  assert.is(local.requests[0].body.prompt, 'Hindi names');
  assert.is(local.requests[0].headers.authorization, undefined, 'a self-hosted server without a key gets none');
  const rows = await rowsOf(r.headers.get('x-gw-request-id')!, 2);
  assert.equal(rows.map((x: any) => [x.provider, x.status, x.billable]), [['groq', 503, 0], ['speaches', 200, 1]]);
});

test('extensions come as form fields, are obeyed, and never reach the provider', async () => {
  const pinned = await transcribe(form({ model: 'whisper-large-v3', provider: 'speaches' }, wav(1)));
  assert.is(pinned.headers.get('x-gw-provider'), 'speaches');
  const policed = await transcribe(form({ model: 'whisper-large-v3', data_policy: 'india_only' }, wav(1)));
  assert.is(policed.headers.get('x-gw-provider'), 'speaches');
  const ordered = await transcribe(form({ model: 'whisper-large-v3', provider: ['speaches', 'groq'] }, wav(1)));
  assert.is(ordered.headers.get('x-gw-provider'), 'speaches');
  assert.is(groq.requests.length, 0);
  for (const req of local.requests) {
    for (const f of ['provider', 'data_policy', 'optimize', 'upstream_key']) assert.is(req.body[f], undefined, `${f} reached the provider`);
  }
  const none = await transcribe(form({ model: 'whisper-1', data_policy: 'india_only' }, wav(1)));
  assert.equal((await errorOf(none)).slice(0, 2), [400, 'no_route']);
  const bad = await transcribe(form({ model: 'whisper-large-v3', optimize: 'cheapest' }, wav(1)));
  assert.equal((await errorOf(bad)).slice(0, 2), [400, 'bad_request']);
});

test('bad uploads get the error envelope, and none reaches a provider', async () => {
  assert.equal((await errorOf(await transcribe(form({ model: 'whisper-large-v3' }, null)))).slice(0, 2), [400, 'bad_request']);
  assert.equal((await errorOf(await transcribe(form({}, wav(1))))).slice(0, 2), [400, 'bad_request']);
  const notForm = await transcribe(JSON.stringify({ model: 'whisper-large-v3' }), { 'content-type': 'application/json' });
  assert.equal((await errorOf(notForm)).slice(0, 2), [400, 'bad_request']);
  const cut = await transcribe('--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--xy',
    { 'content-type': 'multipart/form-data; boundary=xyz' });
  const [status, code, message] = await errorOf(cut);
  assert.equal([status, code], [400, 'bad_request']);
  assert.match(message, /closing boundary/);
  assert.equal((await errorOf(await transcribe(form({ model: 'gpt-4o-mini' }, wav(1))))).slice(0, 2), [400, 'bad_request']);
  assert.equal((await errorOf(await transcribe(form({ model: 'whisper-9' }, wav(1))))).slice(0, 2), [404, 'model_not_found']);
  const big = await transcribe(form({ model: 'whisper-large-v3' }, Buffer.alloc(MAX_FILE + 1, 1)));
  const [s413, c413, m413] = await errorOf(big);
  assert.equal([s413, c413], [413, 'payload_too_large']);
  assert.match(m413, /audio file/);
  const huge = await transcribe(form({ model: 'whisper-large-v3' }, Buffer.alloc(MAX_FILE + 2 * 1024 * 1024, 1)));
  assert.equal((await errorOf(huge)).slice(0, 2), [413, 'payload_too_large']);
  for (const authorization of ['Bearer gw-not-a-real-key-000000000000000000000000', '']) {
    const r = await fetch(`${gw.url}/v1/audio/transcriptions`, {
      method: 'POST', headers: authorization ? { authorization } : {}, body: form({ model: 'whisper-large-v3' }, Buffer.alloc(MAX_FILE, 1)),
    });
    assert.equal((await errorOf(r)).slice(0, 2), [401, 'invalid_api_key']);
  }
  assert.is(groq.requests.length + local.requests.length, 0);
});

test('an upload without a valid key is refused from its headers alone, before any of its body is sent', async () => {
  const socket = connect(gw.port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (d) => (answer += d.toString('latin1')));
  // Headers announce 300 KB that never come: only a refusal made from the headers can answer.
  socket.write(`POST /v1/audio/transcriptions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer gw-unknown-key-00000000000000000000\r\n` +
    `content-type: multipart/form-data; boundary=b\r\ncontent-length: ${300 * 1024}\r\n\r\n`);
  await waitForValue(() => answer.includes('invalid_api_key'), 3_000, 'the 401 before the body');
  assert.match(answer, /^HTTP\/1\.1 401 /);
  socket.destroy();
});

test('a provider\'s own 400 comes back as it is, without failover', async () => {
  groq.enqueue({ kind: 'status', status: 400, body: { error: { message: 'audio too short', type: 'invalid_request_error', code: 'audio_too_short' } } });
  const [status, code, message] = await errorOf(await transcribe(form({ model: 'whisper-large-v3' }, wav(0.05))));
  assert.equal([status, code, message], [400, 'audio_too_short', 'audio too short']);
  assert.is(local.requests.length, 0);
});

test('speech through the openai SDK streams the provider\'s audio byte for byte and bills each Hindi character', async () => {
  const input = 'नमस्ते दुनिया';
  const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input });
  assert.is(res.headers.get('content-type'), 'audio/mpeg');
  assert.is(res.headers.get('x-gw-provider'), 'openai');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(Buffer.concat(speechAudio(input))));
  assert.equal(openai.requests[0].body, { model: 'tts-1', voice: 'alloy', input });
  const [row] = await rowsOf(res.headers.get('x-gw-request-id')!);
  assert.equal([row.endpoint, row.units, row.streamed, row.billable, row.status], ['speech', 13, 1, 1, 200]);
  assert.is(row.cost_micros, 13 * TTS_PER_CHAR);
  // Rows and debits commit together, so the balance holds this cost once the row is in.
  assert.equal(query(gw.dbPath, balanceMismatches), []);

  const w = await speak({ model: 'tts-1-hd', voice: 'nova', input: 'hi', response_format: 'wav', speed: 1.5 });
  assert.is(w.headers.get('content-type'), 'audio/wav');
  await w.arrayBuffer();
  assert.equal(openai.requests[1].body, { model: 'tts-1-hd', voice: 'nova', input: 'hi', response_format: 'wav', speed: 1.5 });
});

test('speech the provider breaks off closes the client connection mid-body and is not billed', async () => {
  openai.enqueue({ kind: 'cut', afterChunks: 1 });
  const r = await speak({ model: 'tts-1', voice: 'alloy', input: 'cut me short' });
  assert.is(r.status, 200);
  let failed = false;
  await r.arrayBuffer().catch(() => {
    failed = true;
  });
  assert.ok(failed, 'the client sees an incomplete body, not a short file');
  const [row] = await rowsOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.error_code, row.cost_micros], ['stream_interrupted', 0]);
  assert.equal(query(gw.dbPath, balanceMismatches), []);
});

test('a client that leaves mid-speech cancels the provider\'s answer and is billed in full', async () => {
  openai.enqueue({ kind: 'parts', parts: ['first audio bytes'], contentType: 'audio/mpeg', hold: true });
  const ac = new AbortController();
  const r = await fetch(`${gw.url}/v1/audio/speech`, {
    method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'बस' }), signal: ac.signal,
  });
  const reader = r.body!.getReader();
  assert.is(Buffer.from((await reader.read()).value!).toString(), 'first audio bytes');
  ac.abort();
  await openai.waitForAbort(5_000);
  const [row] = await rowsOf(r.headers.get('x-gw-request-id')!);
  assert.equal([row.status, row.error_code, row.units, row.billable], [499, 'client_aborted', 2, 1]);
  assert.is(row.cost_micros, 2 * TTS_PER_CHAR);
});

test('Hindi speech on Sarvam, in India: OpenAI\'s request becomes Bulbul\'s, the audio streams back, and india_only can use it', async () => {
  const input = 'नमस्ते, आप कैसे हैं?';
  const res = await client.audio.speech.create({ model: 'bulbul-v3', voice: 'shubh', input, speed: 1.25 });
  assert.is(res.headers.get('x-gw-provider'), 'sarvam-speech');
  assert.is(res.headers.get('content-type'), 'audio/mpeg');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(Buffer.concat(speechAudio(input))));
  const sent = sarvam.requests[0];
  assert.is(sent.path, '/v1/text-to-speech/stream');
  assert.is(sent.headers['api-subscription-key'], 'sv-key');
  assert.is(sent.headers.authorization, undefined);
  assert.equal(sent.body, { text: input, target_language_code: 'hi-IN', speaker: 'shubh', model: 'bulbul:v3', output_audio_codec: 'mp3', pace: 1.25 });
  const [row] = await rowsOf(res.headers.get('x-gw-request-id')!);
  assert.equal([row.provider, row.units, row.cost_micros], ['sarvam-speech', 20, 20 * 3000]);

  // The language: given (any form), else from the script (Tamil here), else Indian English.
  const tamil = await speak({ model: 'bulbul-v3', voice: 'ritu', input: 'வணக்கம்', response_format: 'wav', data_policy: 'india_only' });
  assert.is(tamil.headers.get('content-type'), 'audio/wav');
  await tamil.arrayBuffer();
  const marathi = await speak({ model: 'bulbul-v3', voice: 'ritu', input: 'नमस्कार', language: 'mr', response_format: 'pcm' });
  await marathi.arrayBuffer();
  const english = await speak({ model: 'bulbul-v3', voice: { id: 'amit' }, input: 'Hello' });
  await english.arrayBuffer();
  assert.equal(sarvam.requests.slice(1).map((r) => [r.body.target_language_code, r.body.output_audio_codec, r.body.speaker]),
    [['ta-IN', 'wav', 'ritu'], ['mr-IN', 'linear16', 'ritu'], ['en-IN', 'mp3', 'amit']]);
  assert.equal((await errorOf(await speak({ model: 'tts-1', voice: 'alloy', input: 'hi', data_policy: 'india_only' }))).slice(0, 2), [400, 'no_route']);
});

test('Hindi speech to text on Sarvam: the upload is rewritten for Saaras and its transcript comes back in OpenAI\'s shapes', async () => {
  sarvam.enqueue({ kind: 'ok', content: 'नमस्ते दुनिया' });
  const audio = wav(2.5);
  const { data, response } = await client.audio.transcriptions.create({
    file: await toFile(audio, 'hello.wav', { type: 'audio/wav' }), model: 'saaras-v3', prompt: 'no counterpart', temperature: 0.2,
  }).withResponse();
  assert.equal(data, { text: 'नमस्ते दुनिया' } as any);
  assert.is(response.headers.get('x-gw-provider'), 'sarvam-speech');
  const sent = sarvam.requests[0];
  assert.is(sent.path, '/v1/speech-to-text');
  assert.is(sent.headers['api-subscription-key'], 'sv-key');
  assert.equal(Object.keys(sent.body).sort(), ['file', 'language_code', 'model']);
  assert.equal([sent.body.model, sent.body.language_code], ['saaras:v3', 'unknown']);
  assert.ok(audio.equals(sent.body.file.bytes));
  // Sarvam reports no length: the WAV header gives it.
  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.units, row.usage_estimated, row.cost_micros], [3, 0, Math.round(3 * 0.5e6 / 60)]);

  const text = await transcribe(form({ model: 'saaras-v3', language: 'mr', response_format: 'text', data_policy: 'india_only' }, wav(1)));
  assert.equal([text.status, text.headers.get('content-type'), await text.text()], [200, 'text/plain; charset=utf-8', 'mock transcript']);
  const verbose = await transcribe(form({ model: 'saaras-v3', language: 'hi-IN', response_format: 'verbose_json' }, wav(1)));
  assert.equal(await verbose.json(), { task: 'transcribe', language: 'hi-IN', text: 'mock transcript', segments: [] });
  assert.equal(sarvam.requests.slice(1).map((r) => r.body.language_code), ['mr-IN', 'hi-IN']);
  const srt = await transcribe(form({ model: 'saaras-v3', response_format: 'srt' }, wav(1)));
  const [status, code, message] = await errorOf(srt);
  assert.equal([status, code], [400, 'bad_request']);
  assert.match(message, /json, text or verbose_json/);
  assert.is(sarvam.requests.length, 3);
});

test('a 200 with no audio is a route failure, not an empty file', async () => {
  openai.enqueue({ kind: 'parts', parts: [], contentType: 'audio/mpeg' });
  const [status, code, message] = await errorOf(await speak({ model: 'tts-1', voice: 'alloy', input: 'hi' }));
  assert.equal([status, code], [502, 'all_routes_failed']);
  assert.match(message, /no audio/);
});

test('bad speech requests get the error envelope', async () => {
  const long = 'क'.repeat(4097);
  const cases: [Record<string, unknown>, number, string][] = [
    [{ model: 'tts-1', input: 'hi' }, 400, 'bad_request'],
    [{ model: 'tts-1', voice: 'alloy', input: '' }, 400, 'bad_request'],
    [{ model: 'tts-1', voice: 'alloy', input: long }, 400, 'bad_request'],
    [{ model: 'tts-1', voice: 'alloy', input: 'hi', speed: 9 }, 400, 'bad_request'],
    [{ model: 'tts-1', voice: 'alloy', input: 'hi', response_format: 'mp4' }, 400, 'bad_request'],
    [{ model: 'whisper-1', voice: 'alloy', input: 'hi' }, 400, 'bad_request'],
    [{ model: 'kokoro-82m', voice: 'hf_alpha', input: 'hi', provider: 'openai' }, 400, 'no_route'],
  ];
  for (const [body, status, code] of cases) assert.equal((await errorOf(await speak(body))).slice(0, 2), [status, code], JSON.stringify(body).slice(0, 80));
  const notJson = await fetch(`${gw.url}/v1/audio/speech`, { method: 'POST', headers: bearer(key), body: '{"model":' });
  assert.equal((await errorOf(notJson)).slice(0, 2), [400, 'bad_request']);
  assert.is(openai.requests.length, 0);
});

test('the catalog lists the audio models with their units, and the self-hosted server only once it is turned on', async () => {
  const models = (await (await fetch(`${gw.url}/v1/models`)).json() as any).data;
  const whisper = models.find((m: any) => m.id === 'whisper-large-v3');
  assert.equal([whisper.kind, whisper.pricing.unit, whisper.pricing.input], ['transcription', 'per_minute', 0.163]);
  const tts = models.find((m: any) => m.id === 'tts-1');
  assert.equal([tts.kind, tts.pricing.unit, tts.pricing.input], ['speech', 'per_1m_characters', 1320]);
  const providers = (await (await fetch(`${gw.url}/v1/providers`)).json() as any).data;
  assert.is(providers.find((p: any) => p.id === 'speaches').configured, true);
  const llms = await (await fetch(`${gw.url}/llms.txt`)).text();
  assert.match(llms, /whisper-large-v3: .*₹0\.163 per minute of audio/);
  assert.match(llms, /POST \/v1\/audio\/speech/);
});

test.run();
