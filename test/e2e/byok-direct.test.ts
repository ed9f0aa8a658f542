// `provider/model-id` (spec 4.1): a BYOK provider's model that the catalog does not list, served
// on the caller's own key, never the platform's, and never billed by the gateway.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { balanceMismatches, query, waitForValue } from '../support/ledger.js';
import { embeddingFor, startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, readSse } from '../support/wait.js';

const CALLER_KEY = 'sk-caller-own-key-0123';
let gw: GatewayProcess;
let mock: MockProvider;
let orgId: string;
let key: string;
let client: OpenAI;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({
    providers: {
      openai: { baseUrl: mock.url, apiKey: 'sk-platform' },
      together: { baseUrl: mock.url, apiKey: 'sk-platform-together' },
      speaches: { baseUrl: mock.url },
      fireworks: { enabled: false },
    },
  });
  ({ orgId, key } = await gw.orgAndKey({ credit: 100 }));
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

const chat = (extra: Record<string, unknown>) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody(extra) });
const rowOf = (requestId: string) => waitForValue(() =>
  query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ?').get(requestId) as any), 5_000, `the row of ${requestId}`);
async function errorOf(r: Response): Promise<[number, string, string]> {
  const e = (await r.json() as any).error;
  return [r.status, e.code, e.message];
}

test('a provider/model-id the catalog does not list is served on the caller\'s key, under the provider\'s own id, unbilled', async () => {
  const balance = () => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId));
  const before = balance();
  const { data, response } = await client.chat.completions.create({
    model: 'openai/gpt-4.1-nano', messages: [{ role: 'user', content: 'hi' }], upstream_key: CALLER_KEY,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming).withResponse();
  assert.is(data.choices[0].message.content, 'mock reply');
  assert.is(response.headers.get('x-gw-provider'), 'openai');
  const up = mock.requests[0];
  assert.is(up.body.model, 'gpt-4.1-nano');
  assert.is(up.headers.authorization, `Bearer ${CALLER_KEY}`, 'the caller\'s key, never the platform\'s');
  assert.not.ok('upstream_key' in up.body);
  const row = await rowOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.model, row.provider, row.route, row.byok, row.billable, row.cost_micros, row.prompt_tokens],
    ['openai/gpt-4.1-nano', 'openai', 'openai:gpt-4.1-nano', 1, 1, 0, 11]);
  assert.is(balance(), before);
  assert.equal(query(gw.dbPath, balanceMismatches), []);
});

test('model ids with slashes of their own, streams and embeddings work the same way', async () => {
  const r = await chat({ model: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo', upstream_key: CALLER_KEY, stream: true });
  assert.is(r.status, 200);
  const events = await readSse(r);
  assert.is(events.at(-1), '[DONE]');
  assert.is(events.slice(0, -1).map((e) => JSON.parse(e).choices[0]?.delta?.content ?? '').join(''), streamText(3));
  assert.is(mock.requests[0].body.model, 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
  assert.equal(mock.requests[0].body.stream_options, { include_usage: true });
  assert.is(mock.requests[0].headers.authorization, `Bearer ${CALLER_KEY}`);

  const e = await client.embeddings.create({
    model: 'openai/text-embedding-3-large', input: ['a', 'b'], encoding_format: 'float', upstream_key: CALLER_KEY,
  } as OpenAI.EmbeddingCreateParams);
  assert.equal(e.data[1].embedding, embeddingFor(1));
  assert.is(mock.requests[1].body.model, 'text-embedding-3-large');
});

test('what cannot be addressed directly is refused in the envelope, before any provider is called', async () => {
  const cases: [Record<string, unknown>, number, string, RegExp][] = [
    [{ model: 'openai/gpt-4.1-nano' }, 404, 'model_not_found', /upstream_key/],
    [{ model: 'nope/some-model', upstream_key: CALLER_KEY }, 404, 'model_not_found', /nope\/some-model/],
    [{ model: 'gpt-unknown', upstream_key: CALLER_KEY }, 404, 'model_not_found', /gpt-unknown/],
    [{ model: 'openai/', upstream_key: CALLER_KEY }, 400, 'bad_request', /names no model/],
    [{ model: 'sarvam-speech/bulbul:v2', upstream_key: CALLER_KEY }, 400, 'bad_request', /does not serve chat/],
    [{ model: 'fireworks/some-model', upstream_key: CALLER_KEY }, 400, 'no_route', /turned off/],
    [{ model: 'speaches/whisper', upstream_key: CALLER_KEY }, 400, 'bad_request', /does not take callers' keys/],
    [{ model: 'openai/gpt-4.1-nano', upstream_key: CALLER_KEY, data_policy: 'india_only' }, 400, 'no_route', /india_only/],
    [{ model: 'openai/gpt-4.1-nano', upstream_key: CALLER_KEY, provider: 'groq' }, 400, 'no_route', /groq/],
  ];
  for (const [extra, status, code, message] of cases) {
    const [s, c, m] = await errorOf(await chat(extra));
    assert.equal([s, c], [status, code], JSON.stringify(extra));
    assert.match(m, message);
  }
  assert.is(mock.requests.length, 0);
});

test('the provider refusing the caller\'s key comes back as the caller\'s error; an outage as all_routes_failed', async () => {
  mock.enqueue({ kind: 'status', status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
  const [s, c, m] = await errorOf(await chat({ model: 'openai/gpt-4.1-nano', upstream_key: CALLER_KEY }));
  assert.equal([s, c, m], [401, 'invalid_api_key', 'Incorrect API key provided']);
  mock.enqueue({ kind: 'status', status: 500 });
  const [s2, c2, m2] = await errorOf(await chat({ model: 'openai/gpt-4.1-nano', upstream_key: CALLER_KEY }));
  assert.equal([s2, c2], [502, 'all_routes_failed']);
  assert.match(m2, /openai \(gpt-4\.1-nano\): upstream 500/);
});

test('direct models stay out of the public statistics, which describe catalog models', async () => {
  await chat({ model: 'openai/gpt-4.1-mini', upstream_key: CALLER_KEY });
  await chat({ model: 'gpt-4o-mini' });
  // The book is fed as each request is recorded, before its answer is sent.
  const r = await (await fetch(`${gw.url}/v1/rankings`)).json() as any;
  assert.ok(r.windows[0].data.some((m: any) => m.model === 'gpt-4o-mini'), 'the catalog model is counted');
  for (const w of r.windows) assert.ok(w.data.every((m: any) => !m.model.includes('/')), JSON.stringify(w.data));
  assert.is((await fetch(`${gw.url}/v1/models/openai%2Fgpt-4.1-mini/stats`)).status, 404);
});

test.run();
