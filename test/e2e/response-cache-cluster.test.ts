// The response cache with two instances on PostgreSQL and Redis: an answer one instance stored is
// a hit on the other (the cache is in Redis, with what the answer first cost), and the hit is in
// the shared ledger, billed responseCache.hitCostPercent (50 here) of that cost.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectPostgres, type Pg } from '../../src/store/postgres/pg-database.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, waitFor } from '../support/wait.js';

let cluster: Cluster;
let mock: MockProvider;
let sql: Pg;

test.before(async () => {
  mock = await startMockProvider();
  cluster = await startCluster(2, { providers: { groq: { baseUrl: mock.url, apiKey: 'k' } }, responseCache: { hitCostPercent: 50 } });
  sql = connectPostgres(cluster.pg.url, { max: 2 });
});
test.after(async () => {
  await sql.end({ timeout: 1 });
  await cluster.stop();
  await mock.close();
});

test('an answer stored by one instance is a hit on the other, recorded once as a hit in the shared ledger, billed half the first cost', async () => {
  const [a, b] = cluster.gateways;
  const org = await a.cli('org', 'create', 'acme', '--credit', '1000');
  const { key } = await a.cli('key', 'create', '--org', org.id, '--name', 'k');
  const body = JSON.stringify({ model: 'llama-3.3-70b-instruct', temperature: 0, messages: [{ role: 'user', content: 'shared?' }] });
  const ask = (url: string) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(key), 'x-gw-cache': 'on' }, body });
  const first = await ask(a.url);
  assert.is(first.headers.get('x-gw-cache'), 'miss');
  const text = await first.text();
  const second = await ask(b.url);
  assert.is(second.headers.get('x-gw-cache'), 'hit');
  assert.is(await second.text(), text);
  assert.is(mock.requests.length, 1);
  const [firstId, id] = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
  await waitFor(async () => (await sql`SELECT 1 FROM usage WHERE request_id IN (${firstId}, ${id})`).length === 2, 5_000, 'both rows in the ledger');
  const [miss] = await sql`SELECT cost_micros FROM usage WHERE request_id = ${firstId}`;
  assert.ok(Number(miss.cost_micros) > 1);
  const [row] = await sql`SELECT cache_hit, cost_micros, billable, provider FROM usage WHERE request_id = ${id}`;
  assert.equal({ ...row, cost_micros: Number(row.cost_micros) }, { cache_hit: 1, cost_micros: Math.round(Number(miss.cost_micros) / 2), billable: 1, provider: null });
});

test.run();
