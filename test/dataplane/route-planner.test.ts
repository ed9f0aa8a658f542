import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalog } from '../../src/catalog/catalog.js';
import { loadCatalog } from '../../src/catalog/load.js';
import type { CatalogFile } from '../../src/catalog/schema.js';
import { loadConfig } from '../../src/config/load.js';
import { Breakers } from '../../src/dataplane/breakers.js';
import { RoutePlanner, type Attempt } from '../../src/dataplane/route-planner.js';
import { RouteStatsBook } from '../../src/dataplane/route-stats.js';
import type { Extensions } from '../../src/domain/extensions.js';
import { RouteFailure } from '../../src/dataplane/route-failure.js';
import { GatewayError } from '../../src/errors/gateway-error.js';

// The route planner in process: a small catalog file loaded as the gateway loads its own, and
// the planner's inputs (saved chains, BYOK keys, registered endpoints, breakers, statistics)
// set directly.

const provider = (id: string, o: Partial<CatalogFile['providers'][number]> = {}): CatalogFile['providers'][number] => ({
  id, name: id, kind: 'openai-compatible', baseUrl: `http://127.0.0.1:9/${id}`, keyEnv: `${id.toUpperCase()}_KEY`, residency: 'us', byok: true,
  streamOptions: true, trainsOnInputs: false, zeroRetention: false, ...o,
});
const price = (input: number, output: number) => ({ input, output });

const FILE: CatalogFile = {
  providers: [
    provider('alpha', { residency: 'in', zeroRetention: true }),
    provider('beta', { trainsOnInputs: true }),
    // No key in the environment: listed, not configured.
    provider('gamma'),
    provider('claude', { kind: 'anthropic' }),
    // Takes no caller's key.
    provider('closed', { byok: false }),
    // Keyed, but turned off by the operator.
    provider('off'),
    provider('sandbox', { kind: 'sandbox', keyEnv: null, residency: 'local', byok: false, zeroRetention: true }),
    provider('sarvam', { kind: 'sarvam', residency: 'in' }),
  ],
  models: [
    {
      id: 'chat-a', name: 'a', kind: 'chat', contextLength: 8192, languages: ['en'], priceInr: price(1, 1), routes: [
        { provider: 'alpha', upstreamModel: 'a-up', priceInr: price(10, 20) },
        { provider: 'beta', upstreamModel: 'a-up', priceInr: price(1, 2) },
        { provider: 'gamma', upstreamModel: 'a-up' },
        { provider: 'claude', upstreamModel: 'a-claude', priceInr: price(3, 3) },
        { provider: 'off', upstreamModel: 'a-up' },
      ],
    },
    {
      id: 'chat-b', name: 'b', kind: 'chat', contextLength: 8192, languages: ['en'], priceInr: price(1, 1), routes: [
        { provider: 'beta', upstreamModel: 'b-up' },
        { provider: 'closed', upstreamModel: 'b-up' },
      ],
    },
    { id: 'only-gamma', name: 'g', kind: 'chat', contextLength: 8192, languages: ['en'], priceInr: price(1, 1), routes: [{ provider: 'gamma', upstreamModel: 'g-up' }] },
    {
      id: 'echo', name: 'echo', kind: 'chat', contextLength: 8192, languages: ['any'], priceInr: price(0, 0), routes: [
        { provider: 'sandbox', upstreamModel: 'echo' },
        { provider: 'alpha', upstreamModel: 'echo' },
      ],
    },
    { id: 'embed', name: 'e', kind: 'embedding', contextLength: 8192, languages: ['en'], priceInr: price(1, 0), routes: [{ provider: 'alpha', upstreamModel: 'e-up' }] },
    { id: 'whisper', name: 'w', kind: 'transcription', contextLength: 1, languages: ['en'], priceInr: price(0.5, 0), translates: true, routes: [{ provider: 'alpha', upstreamModel: 'w-up' }] },
    { id: 'saaras', name: 's', kind: 'transcription', contextLength: 1, languages: ['hi'], priceInr: price(0.5, 0), routes: [{ provider: 'sarvam', upstreamModel: 's-up' }] },
  ],
};

const ENV = { ALPHA_KEY: 'alpha-platform', BETA_KEY: 'beta-platform', CLAUDE_KEY: 'claude-platform', CLOSED_KEY: 'closed-platform', OFF_KEY: 'off-platform', SARVAM_KEY: 'sarvam-platform' };

function fixtureCatalog(): Catalog {
  const path = join(mkdtempSync(join(tmpdir(), 'gw-planner-')), 'catalog.json');
  writeFileSync(path, JSON.stringify(FILE));
  return loadCatalog(loadConfig({ env: {}, overrides: { catalogFile: path, providers: { off: { enabled: false } } } }), ENV);
}

const CATALOG = fixtureCatalog();
const BREAKER = { resetTimeoutMs: 60_000, errorThresholdPercentage: 50, volumeThreshold: 2, rollingWindowMs: 10_000 };

function planner(): { p: RoutePlanner; breakers: Breakers; stats: RouteStatsBook } {
  const breakers = new Breakers(BREAKER, () => 1_000);
  const stats = new RouteStatsBook();
  return { p: new RoutePlanner(CATALOG, breakers, stats), breakers, stats };
}

const ext = (o: Partial<Extensions> = {}): Extensions => ({ optimize: null, provider: null, dataPolicy: null, upstreamKey: null, cache: null, guardrails: null, ...o });
const providers = (plan: Attempt[]): string[] => plan.map((a) => a.route.provider.id);

/** The GatewayError a call throws, as `status code: message`. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof GatewayError, String(e));
    return `${e.status} ${e.code}: ${e.message}`;
  }
  assert.unreachable('expected a GatewayError');
  return '';
}

async function openBreaker(b: Breakers, routeId: string): Promise<void> {
  for (let i = 0; i < 2; i++) await b.fire({ id: routeId, direct: false }, () => Promise.reject(new RouteFailure('upstream_error', 'down'))).catch(() => undefined);
  assert.ok(b.isOpen(routeId));
}

test('a model\'s plan is its configured, enabled routes in catalog order, on the platform\'s keys', () => {
  const { p } = planner();
  const plan = p.plan('chat-a', 'chat', ext());
  assert.equal(providers(plan), ['alpha', 'beta', 'claude'], 'gamma has no key, off is turned off');
  assert.equal(plan.map((a) => a.route.id), ['alpha:a-up', 'beta:a-up', 'claude:a-claude']);
  assert.ok(plan.every((a) => !a.byok));
  assert.is(plan[0].secret, 'alpha-platform');
  assert.is(plan[0].headers.authorization, 'Bearer alpha-platform');
  assert.is(plan[2].headers['x-api-key'], 'claude-platform', 'headers are the provider kind\'s own');
  assert.is(plan[0].headers['content-type'], 'application/json');
});

test('the plan of a request without extensions is made once per model', () => {
  const { p } = planner();
  assert.is(p.plan('chat-a', 'chat', ext()), p.plan('chat-a', 'chat', ext()));
  assert.is(p.plan('chat-a', 'chat', ext())[0], p.plan('chat-a', 'chat', ext({ optimize: 'price' })).find((a) => a.route.provider.id === 'alpha'),
    'an attempt (and its headers) is made once per route');
});

test('a keyless provider is configured without a key and is sent no credential', () => {
  const { p } = planner();
  const [sandbox] = p.plan('echo', 'chat', ext());
  assert.is(sandbox.route.provider.id, 'sandbox');
  assert.is(sandbox.secret, null);
  assert.not.ok('authorization' in sandbox.headers);
});

test('a model no configured provider serves has no route', () => {
  assert.is(refusal(() => planner().p.plan('only-gamma', 'chat', ext())),
    "400 no_route: No route for model 'only-gamma' satisfies the request: no provider serving it is configured on this gateway");
});

test('a model asked for on another kind\'s endpoint is a 400 naming the right path', () => {
  const { p } = planner();
  assert.is(refusal(() => p.plan('embed', 'chat', ext())), "400 bad_request: Model 'embed' is an embedding model; use /v1/embeddings");
  assert.is(refusal(() => p.plan('chat-a', 'embeddings', ext())), "400 bad_request: Model 'chat-a' is a chat model; use /v1/chat/completions");
  assert.is(refusal(() => p.plan('whisper', 'speech', ext())), "400 bad_request: Model 'whisper' is a transcription model; use /v1/audio/transcriptions");
  assert.equal(providers(p.plan('whisper', 'transcriptions', ext())), ['alpha']);
  assert.equal(providers(p.plan('whisper', 'translations', ext())), ['alpha'], 'translations take transcription models');
});

test('translations take only models marked translates, and the refusal names them', () => {
  const { p } = planner();
  assert.is(refusal(() => p.plan('saaras', 'translations', ext())), "400 bad_request: Model 'saaras' does not translate speech; these do: whisper");
  assert.equal(providers(p.plan('saaras', 'transcriptions', ext())), ['sarvam']);
});

test('an org\'s saved chain replaces the model\'s routes for that org only: steps in order, a step\'s provider restricts it, a route once', () => {
  const { p } = planner();
  p.setChain('org1', 'chat-a', [{ model: 'chat-b', provider: null }, { model: 'chat-a', provider: 'claude' }, { model: 'chat-b', provider: 'beta' }]);
  assert.equal(p.plan('chat-a', 'chat', ext(), 'org1').map((a) => a.route.id), ['beta:b-up', 'closed:b-up', 'claude:a-claude']);
  assert.equal(providers(p.plan('chat-a', 'chat', ext(), 'org2')), ['alpha', 'beta', 'claude'], 'another org keeps the catalog order');
  assert.equal(providers(p.plan('chat-a', 'chat', ext())), ['alpha', 'beta', 'claude'], 'a request without an org too');
  assert.equal(providers(p.plan('chat-b', 'chat', ext(), 'org1')), ['beta', 'closed'], 'the chain is the model\'s only');
  p.setChain('org1', 'chat-a', null);
  assert.equal(providers(p.plan('chat-a', 'chat', ext(), 'org1')), ['alpha', 'beta', 'claude'], 'a removed chain is gone');
});

test('a saved chain skips steps the catalog no longer has, and keeps only configured routes', () => {
  const { p } = planner();
  p.setChain('org1', 'chat-a', [{ model: 'gone', provider: null }, { model: 'chat-a', provider: 'gamma' }, { model: 'chat-a', provider: 'beta' }]);
  assert.equal(providers(p.plan('chat-a', 'chat', ext(), 'org1')), ['beta']);
  p.setChain('org1', 'chat-a', [{ model: 'chat-a', provider: 'gamma' }]);
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext(), 'org1')),
    "400 no_route: No route for model 'chat-a' satisfies the request: no route of the organisation's saved chain is configured on this gateway");
});

test('extensions filter and order the saved chain, not the catalog routes', () => {
  const { p } = planner();
  p.setChain('org1', 'chat-a', [{ model: 'chat-a', provider: 'claude' }, { model: 'chat-a', provider: 'beta' }]);
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ optimize: 'price' }), 'org1')), ['beta', 'claude']);
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ provider: ['alpha'] }), 'org1')),
    "400 no_route: No route for model 'chat-a' satisfies the request: provider alpha does not serve it or is not configured");
});

test('translations keep to the model\'s own routes, whatever chain the org saved', () => {
  const { p } = planner();
  p.setChain('org1', 'whisper', [{ model: 'saaras', provider: null }]);
  assert.equal(providers(p.plan('whisper', 'transcriptions', ext(), 'org1')), ['sarvam']);
  assert.equal(providers(p.plan('whisper', 'translations', ext(), 'org1')), ['alpha']);
});

test('optimize price orders by input plus output price', () => {
  const { p } = planner();
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ optimize: 'price' }))), ['beta', 'claude', 'alpha']);
  assert.equal(providers(p.plan('chat-a', 'chat', ext())), ['alpha', 'beta', 'claude'], 'the precomputed plan is not reordered in place');
});

test('optimize latency orders by recent p95, throughput by recent tokens per second; routes without samples last, in catalog order', () => {
  const { p, stats } = planner();
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ optimize: 'latency' }))), ['alpha', 'beta', 'claude'], 'no samples: catalog order');
  stats.for('beta:a-up').record(100, 100, 1000);
  stats.for('claude:a-claude').record(300, 100, 200);
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ optimize: 'latency' }))), ['beta', 'claude', 'alpha']);
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ optimize: 'throughput' }))), ['claude', 'beta', 'alpha']);
});

test('a provider pin keeps only that provider; a list keeps those, in the list\'s order', () => {
  const { p } = planner();
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ provider: ['claude'] }))), ['claude']);
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ provider: ['claude', 'gamma', 'alpha'] }))), ['claude', 'alpha']);
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ provider: ['gamma'] }))),
    "400 no_route: No route for model 'chat-a' satisfies the request: provider gamma does not serve it or is not configured");
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ provider: ['off'] }))),
    "400 no_route: No route for model 'chat-a' satisfies the request: provider off does not serve it or is not configured");
});

test('pinned providers whose circuits are all open are refused; one still closed is enough', async () => {
  const { p, breakers } = planner();
  await openBreaker(breakers, 'alpha:a-up');
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ provider: ['alpha'] }))),
    "400 no_route: No route for model 'chat-a' satisfies the request: pinned provider alpha is down (circuit open)");
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ provider: ['alpha', 'beta'] }))), ['alpha', 'beta']);
  assert.equal(providers(p.plan('chat-a', 'chat', ext())), ['alpha', 'beta', 'claude'], 'unpinned, the attempt loop skips open circuits itself');
});

test('data_policy keeps the routes whose provider meets it', () => {
  const { p } = planner();
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ dataPolicy: 'india_only' }))), ['alpha']);
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ dataPolicy: 'no_training' }))), ['alpha', 'claude']);
  assert.equal(providers(p.plan('chat-a', 'chat', ext({ dataPolicy: 'zero_retention' }))), ['alpha']);
  assert.is(refusal(() => p.plan('chat-b', 'chat', ext({ dataPolicy: 'india_only' }))),
    "400 no_route: No route for model 'chat-b' satisfies the request: no configured route meets data_policy india_only");
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ dataPolicy: 'india_only', provider: ['beta'] }))),
    "400 no_route: No route for model 'chat-a' satisfies the request: provider beta does not serve it or is not configured");
});

test('upstream_key needs exactly one pinned provider', () => {
  const { p } = planner();
  const needs = "400 bad_request: 'upstream_key' needs the request to resolve to one provider: pin it with 'provider'";
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ upstreamKey: 'sk-caller-0001' }))), needs);
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ upstreamKey: 'sk-caller-0001', provider: ['alpha', 'beta'] }))), needs);
});

test('upstream_key sends the caller\'s key to the pinned provider, configured or not, as BYOK', () => {
  const { p } = planner();
  const [a] = p.plan('chat-a', 'chat', ext({ upstreamKey: 'sk-caller-0001', provider: ['gamma'] }));
  assert.is(a.route.id, 'gamma:a-up');
  assert.is(a.byok, true);
  assert.is(a.secret, 'sk-caller-0001');
  assert.is(a.headers.authorization, 'Bearer sk-caller-0001');
  const [c] = p.plan('chat-a', 'chat', ext({ upstreamKey: 'sk-caller-0001', provider: ['claude'] }));
  assert.is(c.headers['x-api-key'], 'sk-caller-0001');
});

test('upstream_key never reaches a turned-off provider or a keyless one', () => {
  const { p } = planner();
  assert.is(refusal(() => p.plan('chat-a', 'chat', ext({ upstreamKey: 'sk-caller-0001', provider: ['off'] }))),
    "400 no_route: No route for model 'chat-a' satisfies the request: provider off does not serve it or is not configured");
  assert.is(refusal(() => p.plan('echo', 'chat', ext({ upstreamKey: 'sk-caller-0001', provider: ['sandbox'] }))),
    "400 no_route: No route for model 'echo' satisfies the request: provider sandbox does not serve it or is not configured");
  assert.equal(providers(p.plan('echo', 'chat', ext({ upstreamKey: 'sk-caller-0001', provider: ['alpha'] }))), ['alpha']);
});

test('upstream_key outranks the org\'s saved chain and keys', () => {
  const { p } = planner();
  p.setChain('org1', 'chat-a', [{ model: 'chat-b', provider: null }]);
  p.setOrgKey('org1', 'alpha', { key: 'sk-saved-0001', alwaysUse: true });
  const [a] = p.plan('chat-a', 'chat', ext({ upstreamKey: 'sk-caller-0001', provider: ['alpha'] }), 'org1');
  assert.is(a.route.id, 'alpha:a-up');
  assert.is(a.secret, 'sk-caller-0001');
});

test('an org\'s always-use key replaces the platform\'s for its provider, and makes an unkeyed provider usable', () => {
  const { p } = planner();
  p.setOrgKey('org1', 'alpha', { key: 'sk-alpha-org1', alwaysUse: true });
  const plan = p.plan('chat-a', 'chat', ext(), 'org1');
  assert.equal(providers(plan), ['alpha', 'beta', 'claude']);
  assert.equal(plan.map((a) => [a.byok, a.secret]), [[true, 'sk-alpha-org1'], [false, 'beta-platform'], [false, 'claude-platform']]);
  assert.is(plan[0].headers.authorization, 'Bearer sk-alpha-org1');
  assert.is(p.plan('chat-a', 'chat', ext(), 'org1')[0].headers, plan[0].headers, 'a saved key\'s headers are made once, when saved');
  assert.equal(p.plan('chat-a', 'chat', ext(), 'org2').map((a) => a.byok), [false, false, false], 'another org is untouched');

  p.setOrgKey('org1', 'gamma', { key: 'sk-gamma-org1', alwaysUse: true });
  assert.equal(providers(p.plan('chat-a', 'chat', ext(), 'org1')), ['alpha', 'beta', 'gamma', 'claude']);
  assert.equal(providers(p.plan('only-gamma', 'chat', ext(), 'org1')), ['gamma']);
});

test('an always-use key for a turned-off provider is not used', () => {
  const { p } = planner();
  p.setOrgKey('org1', 'off', { key: 'sk-off-org1', alwaysUse: true });
  assert.equal(providers(p.plan('chat-a', 'chat', ext(), 'org1')), ['alpha', 'beta', 'claude']);
});

test('a saved key that is not always-use leaves catalog models on the platform\'s keys; removing a key restores them', () => {
  const { p } = planner();
  p.setOrgKey('org1', 'alpha', { key: 'sk-alpha-org1', alwaysUse: false });
  assert.equal(p.plan('chat-a', 'chat', ext(), 'org1').map((a) => a.byok), [false, false, false]);
  p.setOrgKey('org1', 'alpha', { key: 'sk-alpha-org1', alwaysUse: true });
  assert.is(p.plan('chat-a', 'chat', ext(), 'org1')[0].byok, true);
  p.setOrgKey('org1', 'alpha', null);
  assert.is(p.plan('chat-a', 'chat', ext(), 'org1')[0].byok, false);
});

test('always-use keys apply to the saved chain\'s routes, and extensions then filter them', () => {
  const { p } = planner();
  p.setChain('org1', 'chat-a', [{ model: 'only-gamma', provider: null }, { model: 'chat-b', provider: 'beta' }]);
  p.setOrgKey('org1', 'gamma', { key: 'sk-gamma-org1', alwaysUse: true });
  assert.equal(p.plan('chat-a', 'chat', ext(), 'org1').map((a) => a.route.id), ['gamma:g-up', 'beta:b-up']);
  assert.equal(p.plan('chat-a', 'chat', ext({ provider: ['gamma'] }), 'org1').map((a) => [a.route.id, a.byok]), [['gamma:g-up', true]]);
});

test('provider/model-id outside the catalog is served on the caller\'s key, free, as a direct route', () => {
  const { p } = planner();
  const [a] = p.plan('alpha/brand-new', 'chat', ext({ upstreamKey: 'sk-caller-0001' }));
  assert.is(a.route.id, 'alpha:brand-new');
  assert.is(a.route.upstreamModel, 'brand-new');
  assert.is(a.route.direct, true);
  assert.equal([a.route.inputMicrosPerUnit, a.route.outputMicrosPerUnit], [0, 0]);
  assert.equal([a.byok, a.secret, a.headers.authorization], [true, 'sk-caller-0001', 'Bearer sk-caller-0001']);
  assert.is(p.plan('alpha/some/slashed-id', 'chat', ext({ upstreamKey: 'sk-caller-0001' }))[0].route.upstreamModel, 'some/slashed-id');
});

test('provider/model-id uses the org\'s saved key for that provider when the request brings none', () => {
  const { p } = planner();
  p.setOrgKey('org1', 'beta', { key: 'sk-beta-org1', alwaysUse: false });
  const [a] = p.plan('beta/brand-new', 'chat', ext(), 'org1');
  assert.equal([a.route.id, a.byok, a.secret, a.headers.authorization], ['beta:brand-new', true, 'sk-beta-org1', 'Bearer sk-beta-org1']);
  assert.is(refusal(() => p.plan('beta/brand-new', 'chat', ext(), 'org2')),
    "404 model_not_found: Model 'beta/brand-new' is not a catalog model: addressed as provider/model-id it is served on your own beta key, sent in 'upstream_key' or saved under /me/byok/beta");
  assert.is(p.plan('beta/brand-new', 'chat', ext({ upstreamKey: 'sk-caller-0001' }), 'org1')[0].secret, 'sk-caller-0001', 'a key in the request wins');
});

test('provider/model-id is refused for unknown, turned-off, platform-only and unsuitable providers', () => {
  const { p } = planner();
  const key = { upstreamKey: 'sk-caller-0001' };
  assert.is(refusal(() => p.plan('nosuch/x', 'chat', ext(key))), "404 model_not_found: Model 'nosuch/x' is not in the catalog");
  assert.is(refusal(() => p.plan('plain-unknown', 'chat', ext(key))), "404 model_not_found: Model 'plain-unknown' is not in the catalog");
  assert.is(refusal(() => p.plan('alpha/ ', 'chat', ext(key))), "400 bad_request: Invalid 'model': 'alpha/ ' names no model after the provider");
  assert.is(refusal(() => p.plan('off/x', 'chat', ext(key))), "400 no_route: No route for model 'off/x' satisfies the request: provider off is turned off on this gateway");
  assert.is(refusal(() => p.plan('closed/x', 'chat', ext(key))),
    "400 bad_request: Provider 'closed' does not take callers' keys, so 'closed/x' cannot be addressed directly; use a catalog model id");
  assert.is(refusal(() => p.plan('sandbox/x', 'chat', ext(key))),
    "400 bad_request: Provider 'sandbox' does not take callers' keys, so 'sandbox/x' cannot be addressed directly; use a catalog model id");
  assert.is(refusal(() => p.plan('claude/x', 'embeddings', ext(key))), "400 bad_request: Provider 'claude' does not serve embeddings; 'claude/x' cannot be called here");
});

test('provider/model-id honours a provider pin and data_policy', () => {
  const { p } = planner();
  const key = { upstreamKey: 'sk-caller-0001' };
  assert.is(refusal(() => p.plan('alpha/x', 'chat', ext({ ...key, provider: ['beta'] }))),
    "400 no_route: No route for model 'alpha/x' satisfies the request: it is served by alpha only, and provider pins beta");
  assert.equal(providers(p.plan('alpha/x', 'chat', ext({ ...key, provider: ['beta', 'alpha'] }))), ['alpha']);
  assert.is(refusal(() => p.plan('beta/x', 'chat', ext({ ...key, dataPolicy: 'no_training' }))),
    "400 no_route: No route for model 'beta/x' satisfies the request: beta does not meet data_policy no_training");
  assert.equal(providers(p.plan('alpha/x', 'chat', ext({ ...key, dataPolicy: 'india_only' }))), ['alpha']);
});

const ENDPOINT = { name: 'mine', baseUrl: 'http://127.0.0.1:9/v1', key: 'sk-endpoint', compliant: true, publicOnly: true };

test('custom/<endpoint>/<model> is served by the org\'s registered endpoint on its own key, free', () => {
  const { p } = planner();
  p.setEndpoint('org1', 'mine', ENDPOINT);
  const [a] = p.plan('custom/mine/llama-local', 'chat', ext(), 'org1');
  assert.equal([a.route.id, a.route.upstreamModel, a.route.direct, a.route.inputMicrosPerUnit], ['custom:mine:llama-local', 'llama-local', true, 0]);
  assert.equal([a.route.provider.id, a.route.provider.baseUrl, a.route.provider.publicOnly], ['custom:mine', ENDPOINT.baseUrl, true]);
  assert.equal([a.byok, a.secret, a.headers.authorization], [true, 'sk-endpoint', 'Bearer sk-endpoint']);
  assert.equal(providers(p.plan('custom/mine/e', 'embeddings', ext(), 'org1')), ['custom:mine']);
  assert.equal(providers(p.plan('custom/mine/llama-local', 'chat', ext({ provider: ['custom:mine'] }), 'org1')), ['custom:mine']);
  p.setEndpoint('org1', 'keyless', { ...ENDPOINT, name: 'keyless', key: null });
  assert.not.ok('authorization' in p.plan('custom/keyless/m', 'chat', ext(), 'org1')[0].headers);
});

test('custom/<endpoint>/<model> is refused for other orgs, removed and failing endpoints, and what an endpoint cannot meet', () => {
  const { p } = planner();
  p.setEndpoint('org1', 'mine', ENDPOINT);
  assert.is(refusal(() => p.plan('custom/mine/m', 'chat', ext(), 'org2')), "404 model_not_found: Model 'custom/mine/m' is not in the catalog");
  assert.is(refusal(() => p.plan('custom/mine/m', 'chat', ext())), "404 model_not_found: Model 'custom/mine/m' is not in the catalog");
  assert.is(refusal(() => p.plan('custom/other/m', 'chat', ext(), 'org1')), "404 model_not_found: Model 'custom/other/m' is not in the catalog");
  assert.is(refusal(() => p.plan('custom/mine/', 'chat', ext(), 'org1')), "400 bad_request: Invalid 'model': 'custom/mine/' names no model after the endpoint");
  assert.is(refusal(() => p.plan('custom/mine/m', 'transcriptions', ext(), 'org1')), '400 bad_request: Registered endpoints serve chat and embeddings, not transcriptions');
  assert.is(refusal(() => p.plan('custom/mine/m', 'chat', ext({ provider: ['alpha'] }), 'org1')),
    "400 no_route: No route for model 'custom/mine/m' satisfies the request: it is served by custom:mine only");
  assert.is(refusal(() => p.plan('custom/mine/m', 'chat', ext({ dataPolicy: 'zero_retention' }), 'org1')),
    "400 no_route: No route for model 'custom/mine/m' satisfies the request: a registered endpoint's data handling is unknown, so it meets no data_policy");
  p.setEndpoint('org1', 'mine', { ...ENDPOINT, compliant: false });
  assert.is(refusal(() => p.plan('custom/mine/m', 'chat', ext(), 'org1')),
    "400 no_route: No route for model 'custom/mine/m' satisfies the request: endpoint 'mine' did not pass its last compliance test; retest it");
  p.setEndpoint('org1', 'mine', null);
  assert.is(refusal(() => p.plan('custom/mine/m', 'chat', ext(), 'org1')), "404 model_not_found: Model 'custom/mine/m' is not in the catalog");
});

test.run();
