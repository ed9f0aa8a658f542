// A registered endpoint whose name resolved to a public address when it was checked, and to an
// internal one now (DNS rebinding): the data plane resolves the name as it connects and refuses.
// The endpoint is written straight into the database, as if registered when it resolved outward.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { write } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody } from '../support/wait.js';

let gw: GatewayProcess;
let mock: MockProvider;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'g' } } });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});

test('a registered endpoint that now resolves inward is refused at connect time; catalog routes to the same host are not', async () => {
  const { orgId, key } = await gw.orgAndKey({ credit: 10 });
  const report = JSON.stringify({ status: 'compliant', models: ['mock-model'], checks: [] });
  write(gw.dbPath, (db) => {
    db.prepare(`INSERT INTO custom_endpoints (id, org_id, name, base_url, key_sealed, key_hint, status, compliance, tested_at, created_at)
      VALUES ('ep_rebound', ?, 'rebound', ?, NULL, NULL, 'compliant', ?, 0, 0)`).run(orgId, mock.url.replace('127.0.0.1', 'localhost'), report);
  });
  await gw.stop();
  await gw.restart();

  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: 'custom/rebound/mock-model' }) });
  const e = (await r.json()) as any;
  assert.equal([r.status, e.error.code], [502, 'all_routes_failed']);
  assert.match(e.error.message, /localhost now resolves to .*an internal address/);
  assert.is(mock.requests.length, 0, 'nothing reached the internal address');

  // The operator's own provider on the same host is not a user's URL, so it is not guarded.
  const ok = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
  assert.is(ok.status, 200);
  await ok.arrayBuffer();
});

test.run();
