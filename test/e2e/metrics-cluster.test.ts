import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectPostgres, type Pg } from '../../src/store/postgres/pg-database.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { parsePromText, sampleSum, sampleValue, type PromFamily } from '../support/prom-text.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

// Two instances on PostgreSQL and Redis: the gate decides in one Redis round trip (enterAdmitted),
// so its refusals reach the metrics on another path than the in-process gate's; summed over the
// instances, the series match the shared ledger.

let cluster: Cluster;
let mock: MockProvider;
let sql: Pg;

test.before(async () => {
  mock = await startMockProvider();
  cluster = await startCluster(2, { providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
  sql = connectPostgres(cluster.pg.url, { max: 2 });
});
test.after(async () => {
  await sql.end({ timeout: 1 });
  await cluster.stop();
  await mock.close();
});

async function scrape(url: string): Promise<Map<string, PromFamily>> {
  const res = await fetch(`${url}/metrics`);
  assert.is(res.status, 200);
  return parsePromText(await res.text());
}

test('over two instances, refusals of the shared gate and the billed tokens and cost add up to the ledger', async () => {
  const org = await cluster.gateways[0].cli('org', 'create', 'acme', '--credit', '1000');
  const { key } = await cluster.gateways[0].cli('key', 'create', '--org', org.id, '--name', 'k', '--rpm', '3');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${cluster.next()}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  assert.equal(statuses, [200, 200, 200, 429, 429, 429]);
  let ledger = { n: 0, input: 0, output: 0, micros: '0' };
  await waitFor(async () => {
    [ledger] = await sql`SELECT COUNT(*)::int AS n, SUM(prompt_tokens)::int AS input, SUM(completion_tokens)::int AS output,
      SUM(cost_micros)::bigint AS micros FROM usage WHERE billable = 1` as unknown as [typeof ledger];
    return ledger.n === 3;
  }, 5_000, 'three ledger rows');
  const all = await Promise.all(cluster.urls.map(scrape));
  const total = (name: string, labels: Record<string, string>) => all.reduce((s, m) => s + sampleSum(m, name, labels), 0);
  assert.is(total('gw_limit_rejections_total', { code: 'rate_limit_exceeded' }), 3);
  assert.is(total('gw_http_requests_total', { route: '/v1/chat/completions', status: '429', code: 'rate_limit_exceeded' }), 3);
  assert.is(total('gw_http_requests_total', { route: '/v1/chat/completions', status: '200', code: '' }), 3);
  assert.is(total('gw_tokens_total', { type: 'input' }), ledger.input);
  assert.is(total('gw_tokens_total', { type: 'output' }), ledger.output);
  assert.ok(Math.abs(total('gw_cost_inr_total', {}) - Number(ledger.micros) / 1e6) < 1e-9);
  for (const m of all) assert.is(sampleValue(m, 'gw_ledger_spooled_batches'), 0);
});

test.run();
