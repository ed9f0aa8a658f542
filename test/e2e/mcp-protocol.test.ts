// The MCP server's protocol layer is the MCP SDK's: version negotiation (the lifecycle's
// initialize), driven by the SDK's own client, and the JSON-RPC codes for params that do not fit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';

let gw: GatewayProcess;
let key: string;

const rpc = async (message: unknown): Promise<{ status: number; doc: any }> => {
  const r = await fetch(`${gw.url}/mcp`, {
    method: 'POST', body: JSON.stringify(message),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
  });
  return { status: r.status, doc: await r.json() };
};
const initialize = (protocolVersion: string) => rpc({
  jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/**
 * The SDK's client always offers its latest version; an older client is that client with its
 * initialize rewritten on the way out, so everything after it (the version check, the
 * mcp-protocol-version header on later requests) is the SDK's own.
 */
function offering(version: string): typeof fetch {
  return async (url, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    if (body?.method === 'initialize') return fetch(url, { ...init, body: JSON.stringify({ ...body, params: { ...body.params, protocolVersion: version } }) });
    return fetch(url, init);
  };
}
async function connect(version?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'gw-protocol-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } }, ...(version ? { fetch: offering(version) } : {}),
  });
  await client.connect(transport);
  return { client, transport };
}

test.before(async () => {
  gw = await startGateway();
  ({ key } = await gw.orgAndKey({ credit: 100 }));
});
test.after(async () => {
  await gw.cleanup();
});

test('the SDK client is answered in its latest protocol version, and is told who the server is', async () => {
  const { client, transport } = await connect();
  assert.is(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.equal(client.getServerVersion(), { name: 'gw', title: 'gw inference gateway', version: '0.1.0' });
  assert.equal(client.getServerCapabilities(), { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } });
  assert.match(client.getInstructions() ?? '', /gw:\/\/models/);
  assert.equal(await client.ping(), {});
  await client.close();
});

test('an older SDK client keeps the version it offers and is served in it', async () => {
  const older = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== LATEST_PROTOCOL_VERSION);
  assert.ok(older.includes('2025-06-18') && older.includes('2024-11-05'), 'the revisions the gateway spoke before the SDK took over');
  for (const version of ['2025-06-18', '2024-11-05']) {
    const { client, transport } = await connect(version);
    assert.is(transport.protocolVersion, version);
    // Later requests carry mcp-protocol-version: <version>, and are answered.
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'chat'), version);
    await client.close();
  }
  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    const { status, doc } = await initialize(version);
    assert.equal([status, doc.id, doc.result?.protocolVersion], [200, 1, version]);
  }
});

test('a version the server does not speak is answered with its latest, for the client to accept or leave (MCP lifecycle)', async () => {
  for (const version of ['1999-01-01', '2099-12-31', '']) {
    const { status, doc } = await initialize(version);
    assert.equal([status, doc.result?.protocolVersion, doc.result?.serverInfo?.name], [200, LATEST_PROTOCOL_VERSION, 'gw'], version);
  }
});

test('params that do not fit the method are -32602 Invalid params, not the SDK 1.x\'s -32603 Internal error', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ method: 'initialize', params: {} }, 'params.protocolVersion'],
    [{ method: 'tools/call', params: { name: 'account', arguments: [1] } }, 'params.arguments'],
    [{ method: 'tools/call', params: {} }, 'params.name'],
    [{ method: 'resources/read', params: { uri: 7 } }, 'params.uri'],
    [{ method: 'tools/list', params: { cursor: 7 } }, 'params.cursor'],
  ];
  for (const [message, path] of cases) {
    const { status, doc } = await rpc({ jsonrpc: '2.0', id: 'x', ...message });
    assert.equal([status, doc.id, doc.error?.code], [200, 'x', -32602], JSON.stringify(message));
    assert.ok(doc.error.message.includes(path), doc.error.message);
  }
  // A tool call without arguments is a call with none, not a mistake.
  const { doc } = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'account' } });
  assert.is(doc.result?.structuredContent?.key?.scope, 'full');
});

test.run();
