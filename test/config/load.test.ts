import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { ROOT } from '../support/gateway-process.js';
import { defaultConnectionsPerOrigin } from '../../src/lib/stream-capacity.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function throwsConfig(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (e) {
    assert.instance(e, ConfigError);
    assert.match((e as Error).message, pattern);
    return;
  }
  assert.unreachable('expected a ConfigError');
}

test('defaults work with no file and no environment', () => {
  const c = loadConfig({ env: {} });
  assert.is(c.port, 8080);
  assert.is(c.host, '127.0.0.1');
  assert.is(c.dbPath, join(ROOT, 'data', 'gateway.db'), 'data/gateway.db in the package folder, wherever the command runs');
  assert.is(c.limits.gatewayRpm, 120);
  assert.is(c.keyCache.ttlMs, 60_000);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.limits), 'frozen after validation');
});

test('npm start and gw find the same database from any folder: relative paths follow one rule', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'gw-cwd-'));
  const sub = join(dir, 'sub');
  const p = file('rel.json', JSON.stringify({ dbPath: 'db/rel.db' }));
  // npm runs scripts in the package root and passes the folder the command was typed in as INIT_CWD.
  assert.is(loadConfig({ env: { INIT_CWD: elsewhere } }).dbPath, join(ROOT, 'data', 'gateway.db'), 'the default ignores the folder');
  assert.is(loadConfig({ env: {}, cwd: elsewhere }).dbPath, join(ROOT, 'data', 'gateway.db'));
  assert.is(loadConfig({ file: p, env: {}, cwd: elsewhere }).dbPath, join(dir, 'db', 'rel.db'), 'a config file\'s dbPath is relative to the file');
  assert.is(loadConfig({ env: { GW_CONFIG: 'rel.json', INIT_CWD: dir } }).dbPath, join(dir, 'db', 'rel.db'), 'GW_CONFIG is relative to where it was typed');
  assert.is(loadConfig({ env: { GW_DB: 'x.db', INIT_CWD: sub } }).dbPath, join(sub, 'x.db'), 'GW_DB is relative to where it was typed');
  assert.is(loadConfig({ file: p, env: {}, cwd: sub, overrides: { dbPath: './y.db' } }).dbPath, join(sub, 'y.db'), '--db too');
  assert.is(loadConfig({ env: { GW_DB: ':memory:' } }).dbPath, ':memory:');
});

test('upstream connections are sized to the box unless set, and the queue defaults to the cap', () => {
  const derived = loadConfig({ env: {} }).upstream;
  assert.is(derived.connectionsPerOrigin, defaultConnectionsPerOrigin());
  assert.is(derived.maxQueuedPerOrigin, derived.connectionsPerOrigin);
  assert.is(derived.queueTimeoutMs, 5_000);
  const set = loadConfig({ env: {}, overrides: { upstream: { connectionsPerOrigin: 64, maxQueuedPerOrigin: 10, queueTimeoutMs: 250 } } }).upstream;
  assert.equal([set.connectionsPerOrigin, set.maxQueuedPerOrigin, set.queueTimeoutMs], [64, 10, 250]);
});

test('the file, then the environment, then overrides apply in that order', () => {
  const p = file('a.json', JSON.stringify({ port: 9000, dbPath: '/tmp/a.db', limits: { gatewayRpm: 500 } }));
  const c = loadConfig({ file: p, env: { GW_PORT: '9100' }, overrides: { dbPath: '/tmp/b.db' } });
  assert.is(c.port, 9100);
  assert.is(c.dbPath, '/tmp/b.db');
  assert.is(c.limits.gatewayRpm, 500);
  assert.is(c.limits.publicRpmPerIp, 120, 'defaults fill what the file leaves out');
  assert.is(loadConfig({ env: { GW_CONFIG: p } }).port, 9000, 'GW_CONFIG names the file');
});

test('an invalid value stops start-up with a message naming its path', () => {
  throwsConfig(() => loadConfig({ file: file('b.json', '{"upstream":{"connectTimeoutMs":"soon"}}'), env: {} }), /\/upstream\/connectTimeoutMs/);
  throwsConfig(() => loadConfig({ file: file('c.json', '{"port":70000}'), env: {} }), /invalid config at \/port/);
  throwsConfig(() => loadConfig({ file: file('d.json', '{"prot":1}'), env: {} }), /invalid config/);
  throwsConfig(() => loadConfig({ file: file('e.json', '{"providers":{"openai":{"baseUrl":"ftp://x"}}}'), env: {} }), /\/providers\/openai\/baseUrl/);
  throwsConfig(() => loadConfig({ env: { GW_PORT: 'eighty' } }), /GW_PORT/);
  throwsConfig(() => loadConfig({ file: file('f.json', '{"upstream":{"maxResponseBytes":4096,"maxBufferedBytes":2048}}'), env: {} }),
    /\/upstream\/maxBufferedBytes: must be at least upstream.maxResponseBytes \(4096\)/);
});

test('metrics: on by default without a token; GW_METRICS_TOKEN sets the token over the file; a short token stops start-up', () => {
  const c = loadConfig({ env: {} });
  assert.equal([c.metrics.enabled, c.metrics.token], [true, undefined]);
  const p = file('m.json', JSON.stringify({ metrics: { enabled: false, token: 'from-the-file-0123456789' } }));
  assert.equal(loadConfig({ file: p, env: {} }).metrics, { enabled: false, token: 'from-the-file-0123456789' });
  assert.is(loadConfig({ file: p, env: { GW_METRICS_TOKEN: 'from-the-environment-0123' } }).metrics.token, 'from-the-environment-0123');
  assert.is(loadConfig({ file: p, env: { GW_METRICS_TOKEN: '' } }).metrics.token, 'from-the-file-0123456789', 'an empty variable counts as unset');
  throwsConfig(() => loadConfig({ env: { GW_METRICS_TOKEN: 'short' } }), /invalid config at \/metrics\/token/);
});

test('tracing: off by default and never capturing content; GW_OTLP_URL turns it on over the file; a URL that is not http(s) stops start-up', () => {
  assert.equal(loadConfig({ env: {} }).tracing, { serviceName: 'gw-gateway', captureContent: false });
  const p = file('t.json', JSON.stringify({ tracing: { otlpUrl: 'http://collector:4318', captureContent: true } }));
  assert.equal(loadConfig({ file: p, env: {} }).tracing, { otlpUrl: 'http://collector:4318', serviceName: 'gw-gateway', captureContent: true });
  assert.is(loadConfig({ file: p, env: { GW_OTLP_URL: 'https://otel.example:4318' } }).tracing.otlpUrl, 'https://otel.example:4318');
  throwsConfig(() => loadConfig({ env: { GW_OTLP_URL: 'collector:4318' } }), /invalid config at \/tracing\/otlpUrl/);
  throwsConfig(() => loadConfig({ file: file('t2.json', JSON.stringify({ tracing: { captureContent: 'yes' } })), env: {} }), /invalid config at \/tracing\/captureContent/);
});

test('an unreadable or non-JSON file is named in the error', () => {
  throwsConfig(() => loadConfig({ file: join(dir, 'missing.json'), env: {} }), /cannot read config file .*missing\.json/);
  throwsConfig(() => loadConfig({ file: file('f.json', '{nope'), env: {} }), /not valid JSON/);
  throwsConfig(() => loadConfig({ file: file('g.json', '[1]'), env: {} }), /must hold a JSON object/);
});

test('upstream proxies come from the file, else the conventional variables (lowercase first)', () => {
  let c = loadConfig({ env: { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'proxy.corp:3128', NO_PROXY: 'localhost,.internal' } });
  assert.is(c.upstream.httpsProxy, 'proxy.corp:3128');
  assert.is(c.upstream.httpProxy, undefined);
  assert.is(c.upstream.noProxy, 'localhost,.internal');
  const p = file('proxy.json', JSON.stringify({ upstream: { httpsProxy: 'http://file:8080', httpProxy: '' } }));
  c = loadConfig({ file: p, env: { HTTPS_PROXY: 'http://env:3128', HTTP_PROXY: 'http://env:3128' } });
  assert.is(c.upstream.httpsProxy, 'http://file:8080', 'the file wins over the machine-wide variable');
  assert.is(c.upstream.httpProxy, '', 'an empty value in the file turns the variable off');
  c = loadConfig({ env: { ALL_PROXY: 'socks5h://127.0.0.1:1080' } });
  assert.is(c.upstream.allProxy, 'socks5h://127.0.0.1:1080');
});

test('an unusable proxy stops start-up naming the setting or the variable', () => {
  throwsConfig(() => loadConfig({ env: { HTTPS_PROXY: 'socks4://proxy:1080' } }), /\/upstream\/httpsProxy \(from HTTPS_PROXY\).*socks5h:\/\//);
  throwsConfig(() => loadConfig({ env: { ALL_PROXY: 'ftp://proxy' } }), /\/upstream\/allProxy \(from ALL_PROXY\)/);
  throwsConfig(() => loadConfig({ file: file('bad-proxy.json', '{"upstream":{"httpProxy":"http://proxy:3128/path"}}'), env: {} }),
    /\/upstream\/httpProxy \(file .*\): .*no path/);
  throwsConfig(() => loadConfig({ env: { http_proxy: 'http://[nope' } }), /\/upstream\/httpProxy \(from http_proxy\).*not a proxy URL/);
});

test('billing: payment secrets from the environment, the seller state kept as its GST code, cross-field rules', () => {
  const c = loadConfig({
    file: file('billing.json', JSON.stringify({ billing: { seller: { state: 'karnataka', gstin: '29AAGCB7383J1Z4' } } })),
    env: { GW_PAYMENTS_KEY_ID: 'rzp_live_x', GW_PAYMENTS_KEY_SECRET: 'sec', GW_PAYMENTS_WEBHOOK_SECRET: 'whsec' },
  });
  assert.equal([c.billing.payments.keyId, c.billing.payments.keySecret, c.billing.payments.webhookSecret], ['rzp_live_x', 'sec', 'whsec']);
  assert.is(c.billing.seller.state, '29');
  assert.equal([c.billing.minTopupInr, c.billing.maxTopupInr], [100, 1000]);
  throwsConfig(() => loadConfig({ env: { GW_PAYMENTS_KEY_ID: 'k' } }), /\/billing\/seller\/state: is required once billing.payments is configured/);
  throwsConfig(() => loadConfig({ env: {}, overrides: { billing: { seller: { state: 'Atlantis' } } } }), /\/billing\/seller\/state: 'Atlantis'/);
  throwsConfig(() => loadConfig({ env: {}, overrides: { billing: { seller: { state: '27', gstin: '29AAGCB7383J1Z4' } } } }), /\/billing\/seller\/gstin/);
  throwsConfig(() => loadConfig({ env: {}, overrides: { billing: { minTopupInr: 500, maxTopupInr: 100 } } }), /\/billing\/minTopupInr/);
});

test.run();
