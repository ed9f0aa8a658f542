import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { ROOT } from '../support/gateway-process.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { freePort } from '../support/free-port.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { waitFor } from '../support/wait.js';

// The sample load-balancer config of docs/scale-out.md, as shipped (docs/samples/nginx-gw.conf),
// in front of three instances: requests spread over them, streams arrive chunk by chunk, and the
// gateway's own errors pass through unchanged.

let cluster: Cluster;
let mock: MockProvider;
let nginx: ChildProcess;
let base = '';

test.before(async () => {
  mock = await startMockProvider();
  cluster = await startCluster(3, { providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gw-nginx-'));
  for (const d of ['body', 'proxy']) mkdirSync(join(dir, d));
  // The sample with this machine's addresses: the three instances and a free port.
  const sample = readFileSync(join(ROOT, 'docs', 'samples', 'nginx-gw.conf'), 'utf8');
  const servers = cluster.gateways.map((g) => `    server 127.0.0.1:${g.port};`).join('\n');
  const site = sample.replace(/( {4}server 10\.0\.0\.\d+:8080;\n)+/, `${servers}\n`).replace('listen 80;', `listen 127.0.0.1:${port};`);
  assert.ok(site.includes(`127.0.0.1:${cluster.gateways[2].port}`) && !site.includes('10.0.0.'), 'the sample has the shape the test rewrites');
  writeFileSync(join(dir, 'gw.conf'), site);
  writeFileSync(join(dir, 'nginx.conf'), `worker_processes 1;
master_process off;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  include ${join(dir, 'gw.conf')};
}
`);
  nginx = spawn('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  process.once('exit', () => nginx.kill('SIGKILL'));
  base = `http://127.0.0.1:${port}`;
  await waitFor(async () => fetch(`${base}/health`).then((r) => r.ok, () => false), 10_000, 'nginx to answer');
});
test.after(async () => {
  nginx.kill('SIGKILL');
  await cluster.stop();
  await mock.close();
});

test('requests through nginx spread over the three instances and all succeed', async () => {
  const org = (await cluster.gateways[0].cli('org', 'create', 'behind-nginx', '--credit', '10')).id;
  const { key } = await cluster.gateways[0].cli('key', 'create', '--org', org, '--name', 'k');
  const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  for (let i = 0; i < 9; i++) {
    const r = await client.chat.completions.create({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }] });
    assert.ok(r.choices[0].message.content);
  }
  // Each instance's traffic statistics count what it served since it started (no traffic before
  // this test): round robin gives each its share of the nine.
  const served = await Promise.all(cluster.gateways.map(async (g) =>
    ((await (await fetch(`${g.url}/v1/models/llama-3.3-70b-instruct/stats`)).json()) as { requests: number }).requests));
  assert.equal(served, [3, 3, 3]);
});

test('a stream arrives through nginx chunk by chunk, not buffered to the end', async () => {
  const org = (await cluster.gateways[0].cli('org', 'create', 'streams', '--credit', '10')).id;
  const { key } = await cluster.gateways[0].cli('key', 'create', '--org', org, '--name', 'k');
  mock.setDefault({ kind: 'stream', chunks: 5, intervalMs: 200 });
  const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const started = Date.now();
  const arrivals: number[] = [];
  const stream = await client.chat.completions.create({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }], stream: true });
  for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) arrivals.push(Date.now() - started);
  assert.ok(arrivals.length >= 5, `${arrivals.length} content chunks`);
  assert.ok(arrivals[0] < 600, `the first chunk came after ${arrivals[0]} ms, before the stream ended (~1 s)`);
  assert.ok(arrivals[arrivals.length - 1] - arrivals[0] >= 600, 'chunks spread over the stream\'s time');
  mock.setDefault({ kind: 'ok' });
});

test("the gateway's own errors pass through in its shape", async () => {
  const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer gw-nope', 'content-type': 'application/json' }, body: '{}' });
  assert.is(res.status, 401);
  assert.is(((await res.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
});

test.run();
