// The MCP server (spec 4.2, 5) driven by the official MCP SDK client over streamable HTTP, plus
// raw JSON-RPC for what a well-behaved client never sends.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';

let gw: GatewayProcess;
let key: string;

async function connect(k: string): Promise<Client> {
  const client = new Client({ name: 'gw-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${k}` } } }));
  return client;
}
const rpc = (body: string, k: string | null = key) => fetch(`${gw.url}/mcp`, {
  method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(k ? { authorization: `Bearer ${k}` } : {}) },
});
const data = (r: any) => r.structuredContent as any;

test.before(async () => {
  gw = await startGateway();
  ({ key } = await gw.orgAndKey({ credit: 100 }));
});
test.after(async () => {
  await gw.cleanup();
});

test('the server card names the streamable HTTP endpoint, bearer auth and the tools', async () => {
  const card = await (await fetch(`${gw.url}/.well-known/mcp/server-card.json`)).json() as any;
  assert.equal(card.remotes, [{ type: 'streamable-http', url: `${gw.url}/mcp`,
    headers: [{ name: 'Authorization', description: 'Bearer gw- API key', isRequired: true, isSecret: true }] }]);
  assert.equal(card.tools.map((t: any) => t.name), ['list_models', 'chat', 'account', 'list_keys', 'create_ephemeral_key']);
  assert.is(card.version, '0.1.0');
  assert.is(card.name, 'local.gw/gw', 'an address has no domain to reverse');
});

test('the MCP SDK connects, lists the tools, and runs inference through the gateway, recorded in the ledger', async () => {
  const client = await connect(key);
  assert.equal((await client.listTools()).tools.map((t) => t.name), ['list_models', 'chat', 'account', 'list_keys', 'create_ephemeral_key']);
  const models = data(await client.callTool({ name: 'list_models', arguments: { kind: 'embedding' } })).models;
  assert.ok(models.every((m: any) => m.kind === 'embedding') && models.some((m: any) => m.id === 'sandbox/embed'));

  const r = await client.callTool({ name: 'chat', arguments: { model: 'sandbox/echo', messages: [{ role: 'user', content: 'namaste' }] } });
  assert.not.ok(r.isError);
  assert.equal((r.content as any)[0], { type: 'text', text: 'echo: namaste' });
  const out = data(r);
  assert.equal([out.provider, out.usage.completion_tokens > 0], ['sandbox', true]);
  const row = await waitForValue(() => query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ?').get(out.request_id)) as any,
    5_000, 'the ledger row');
  assert.equal([row.model, row.status, row.billable], ['sandbox/echo', 200, 1]);

  const account = data(await client.callTool({ name: 'account', arguments: {} }));
  assert.equal([account.balance_inr, account.key.scope, account.key.tier], [100, 'full', 'standard']);
  await client.close();
});

test('resources: the catalog and the account, readable as context; an unknown one is a JSON-RPC error', async () => {
  const client = await connect(key);
  assert.equal((await client.listResources()).resources.map((r) => [r.uri, r.mimeType]), [['gw://models', 'application/json'], ['gw://account', 'application/json']]);
  const models = JSON.parse(((await client.readResource({ uri: 'gw://models' })).contents[0] as any).text);
  assert.ok(models.models.some((m: any) => m.id === 'sandbox/echo'));
  const account = JSON.parse(((await client.readResource({ uri: 'gw://account' })).contents[0] as any).text);
  assert.equal([account.balance_inr, account.key.scope], [100, 'full']);
  const missing = await client.readResource({ uri: 'gw://nothing' }).then(() => null, (e: any) => e);
  assert.is(missing?.code, -32002);
  assert.equal((await client.listResourceTemplates()).resourceTemplates, []);
  await client.close();
  const card = await (await fetch(`${gw.url}/.well-known/mcp/server-card.json`)).json() as any;
  assert.equal(card.resources.map((r: any) => r.uri), ['gw://models', 'gw://account']);
});

test('a full-scope key mints an ephemeral key: inference only, limited, and refused the management tools', async () => {
  const client = await connect(key);
  const before = Date.now();
  const minted = data(await client.callTool({ name: 'create_ephemeral_key', arguments: { hours: 2, daily_limit: 10, name: 'agent' } }));
  assert.equal([minted.scope, minted.daily_limit, minted.name], ['inference', 10, 'agent']);
  const expires = Date.parse(minted.expires_at);
  assert.ok(expires >= before + 2 * 3_600_000 && expires <= Date.now() + 2 * 3_600_000);
  assert.ok(data(await client.callTool({ name: 'list_keys', arguments: {} })).keys.some((k: any) => k.id === minted.id && k.scope === 'inference'));
  await client.close();

  // The ephemeral key works for inference, through the OpenAI SDK and through MCP...
  const sdk = new OpenAI({ apiKey: minted.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  assert.is((await sdk.chat.completions.create({ model: 'sandbox/echo', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content, 'echo: hi');
  const agent = await connect(minted.key);
  assert.is(data(await agent.callTool({ name: 'account', arguments: {} })).key.scope, 'inference');
  // ...but cannot manage keys.
  for (const name of ['list_keys', 'create_ephemeral_key']) {
    const refused = await agent.callTool({ name, arguments: { hours: 1 } });
    assert.ok(refused.isError);
    assert.is(data(refused).error.code, 'forbidden', name);
  }
  await agent.close();
});

test('tool refusals come back as tool errors carrying the gateway\'s envelope', async () => {
  const client = await connect(key);
  // At most 50 ephemeral keys are active at once (one was minted above).
  for (let i = 0; i < 49; i++) assert.not.ok((await client.callTool({ name: 'create_ephemeral_key', arguments: { hours: 1 } })).isError);
  const capped = await client.callTool({ name: 'create_ephemeral_key', arguments: { hours: 1 } });
  assert.ok(capped.isError);
  assert.is(data(capped).error.code, 'cap');
  const cases: [string, Record<string, unknown>, string][] = [
    ['chat', { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }, 'model_not_found'],
    ['chat', { model: 'sandbox/echo', messages: [] }, 'bad_request'],
    ['create_ephemeral_key', { hours: 500 }, 'bad_request'],
    ['create_ephemeral_key', { hours: 1, daily_limit: 5000 }, 'bad_request'],
    ['no_such_tool', {}, 'bad_request'],
  ];
  for (const [name, args, code] of cases) {
    const r = await client.callTool({ name, arguments: args });
    assert.ok(r.isError, name);
    assert.is(data(r).error.code, code, `${name} ${JSON.stringify(args)}`);
  }
  await client.close();
});

test('what a client should not send: no key is a 401 envelope; bad JSON-RPC gets JSON-RPC errors; GET is 405', async () => {
  const noKey = await rpc('{"jsonrpc":"2.0","id":1,"method":"ping"}', null);
  assert.equal([noKey.status, ((await noKey.json()) as any).error.code], [401, 'invalid_api_key']);
  const cases: [string, number, number][] = [
    ['{not json', 400, -32700],
    ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 400, -32600],
    ['{"id":1,"method":"ping"}', 400, -32600],
    ['{"jsonrpc":"2.0","id":{},"method":"ping"}', 400, -32600],
    ['{"jsonrpc":"2.0","id":7,"method":"prompts/list"}', 200, -32601],
  ];
  for (const [body, status, code] of cases) {
    const r = await rpc(body);
    const doc = await r.json() as any;
    assert.equal([r.status, doc.jsonrpc, doc.error?.code], [status, '2.0', code], body);
  }
  const ping = await (await rpc('{"jsonrpc":"2.0","id":"p","method":"ping"}')).json();
  assert.equal(ping, { jsonrpc: '2.0', id: 'p', result: {} });
  assert.is((await rpc('{"jsonrpc":"2.0","method":"notifications/initialized"}')).status, 202);
  const get = await fetch(`${gw.url}/mcp`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal([get.status, ((await get.json()) as any).error.code], [405, 'method_not_allowed']);
});

test.run();
