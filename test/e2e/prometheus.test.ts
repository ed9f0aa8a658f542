import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { startPrometheus, type PrometheusServer } from '../support/prometheus-server.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

// The operator's side of /metrics with the real thing: Prometheus' own tools read the exposition
// and the sample alert rules, and a Prometheus server scrapes the gateway, evaluates the rules
// and answers every query of the sample Grafana dashboard.
const ALERTS = join(ROOT, 'docs', 'prometheus-alerts.yml');
let gw: GatewayProcess;
let mock: MockProvider;
let prom: PrometheusServer;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq' } } });
  const { key } = await gw.orgAndKey();
  for (let i = 0; i < 5; i++) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: 'llama-3.3-70b-instruct' }) });
    assert.is(r.status, 200);
    await r.arrayBuffer();
  }
  prom = await startPrometheus(`127.0.0.1:${gw.port}`, [ALERTS]);
});
test.after(async () => {
  await prom?.stop();
  await gw.cleanup();
  await mock.close();
});

function promtool(args: string[], stdin?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const p = execFile('promtool', args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') reject(new Error('promtool is missing: run `sh scripts/install-servers.sh` (Debian\'s prometheus package)'));
      else resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
    if (stdin !== undefined) p.stdin!.end(stdin);
  });
}

test('promtool reads the exposition without a complaint, and the sample alert rules as valid', async () => {
  const exposition = await (await fetch(`${gw.url}/metrics`)).text();
  const metrics = await promtool(['check', 'metrics'], exposition);
  assert.equal(metrics, { code: 0, out: '' }, metrics.out);
  const rules = await promtool(['check', 'rules', ALERTS]);
  assert.is(rules.code, 0, rules.out);
  assert.match(rules.out, /SUCCESS: \d+ rules found/);
});

test('a Prometheus server scrapes the gateway, counts its requests and evaluates every alert rule without an error', async () => {
  const total = await waitFor(async () => {
    const r = await prom.api<{ result: { value: [number, string] }[] }>(`query?query=${encodeURIComponent('sum(gw_http_requests_total{job="gw",route="/v1/chat/completions",status="200"})')}`);
    return r.result.length > 0 ? Number(r.result[0].value[1]) : 0;
  }, 20_000, 'the first scrape');
  assert.is(total, 5);
  const groups = await waitFor(async () => {
    const g = (await prom.api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>('rules')).groups;
    return g.length > 0 && g.every((x) => x.rules.every((r) => r.health !== 'unknown')) ? g : null;
  }, 20_000, 'the rules evaluated');
  const rules = groups!.flatMap((g) => g.rules);
  assert.ok(rules.length >= 5);
  for (const r of rules!) assert.is(r.health, 'ok', `${r.name}: ${r.lastError}`);
  // Nothing is wrong with a gateway that just served five requests.
  const firing = await prom.api<{ alerts: { labels: { alertname: string }; state: string }[] }>('alerts');
  assert.equal(firing.alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname), []);
});

test('every query of the sample Grafana dashboard is valid PromQL to Prometheus, and the request and token panels have data', async () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs', 'grafana-gateway.json'), 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
  const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', 'gw') })));
  assert.ok(queries.length >= 15);
  for (const q of queries) await prom.api(`query?query=${encodeURIComponent(q.expr)}`).catch((e: Error) => assert.unreachable(`${q.title}: ${e.message}`));
  for (const metric of ['gw_http_requests_total', 'gw_tokens_total']) {
    const q = queries.find((x) => x.expr.includes(metric))!;
    await waitFor(async () => (await prom.api<{ result: unknown[] }>(`query?query=${encodeURIComponent(q.expr)}`)).result.length > 0, 20_000, `data for ${q.title}`);
  }
});

test.run();
