import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { loadCatalog } from '../../../src/catalog/load.js';
import { loadConfig } from '../../../src/config/load.js';
import { manualClock } from '../../../src/lib/clock.js';
import { createLogger } from '../../../src/lib/logger.js';
import { byokRoutes } from '../../../src/control/byok/byok-routes.js';
import { ByokService, type ByokServiceDeps } from '../../../src/control/byok/byok-service.js';
import { ProxyDispatchers } from '../../../src/control/proxy-dispatchers.js';
import type { ByokKeyStore } from '../../../src/domain/stores/byok-key-store.js';
import { sqliteByokKeyStore } from '../../../src/store/byok-keys.js';
import { postgresByokKeyStore } from '../../../src/store/postgres/pg-byok-keys.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { eachBackend } from '../../support/store-backends.js';
import { as, injector, type TwoOrgs } from '../in-process.js';

// Saved provider keys through their routes, in process, checked live against a real
// OpenAI-compatible server on 127.0.0.1: owners only, the key's shape, the provider's verdict,
// another org's reach, byok.enabled, and the data plane told of every change; over SQLite and over
// PostgreSQL.

const KEY = 'sk-org-own-key-0000wxyz';
const clock = manualClock(Date.UTC(2026, 0, 5, 6, 30));
const masterKey = randomBytes(32);

eachBackend('saved provider keys', (test, be) => {
  let orgs: Pick<TwoOrgs, 'org'>;
  let store: ByokKeyStore;
  const published: Parameters<ByokServiceDeps['orgKeyChanged']>[] = [];
  const warnings: string[] = [];
  let openai: MockProvider;
  let service: (o?: { enabled?: boolean; master?: Buffer }) => ByokService;
  let call: ReturnType<typeof injector>;
  const put = (provider: string, body: Record<string, unknown>, who = as('a', 'owner')) =>
    call({ method: 'PUT', url: `/me/byok/${provider}`, headers: who, body });

  test.before(async () => {
    orgs = { org: { a: (await be().org('Org A')).orgId, b: (await be().org('Org B')).orgId } };
    store = be().pick(sqliteByokKeyStore, postgresByokKeyStore);
    openai = await startMockProvider();
    service = (o = {}) => {
      const config = loadConfig({
        env: {}, overrides: {
          byok: { enabled: o.enabled ?? true, verifyTimeoutMs: 5_000 },
          // Nothing listens on port 9: the live check cannot reach it.
          providers: { openai: { baseUrl: openai.url }, together: { baseUrl: 'http://127.0.0.1:9/v1' } },
        },
      });
      return new ByokService({
        byokKeys: store, catalog: loadCatalog(config, {}), clock, log: createLogger('warn', (line) => warnings.push(line)),
        masterKey: o.master ?? masterKey, outbound: new ProxyDispatchers(config.upstream), settings: config.byok,
        orgKeyChanged: (org, provider, saved) => published.push([org, provider, saved]),
      });
    };
    call = injector(byokRoutes(service()), orgs);
  });
  test.after(async () => {
    await openai.close();
  });
  test.before.each(() => {
    openai.reset();
    published.length = 0;
  });

  test('turned off (byok.enabled false), every route is 503 byok_disabled', async () => {
    const off = injector(byokRoutes(service({ enabled: false })), orgs);
    for (const [method, url] of [['GET', '/me/byok'], ['PUT', '/me/byok/openai'], ['GET', '/me/byok/openai/models'], ['DELETE', '/me/byok/openai']] as const) {
      const r = await off({ method, url, headers: as('a', 'owner'), body: method === 'PUT' ? { key: KEY } : undefined });
      assert.equal([r.status, r.json().error.code], [503, 'byok_disabled'], url);
    }
  });

  test('owners only: an admin is 403; a provider that takes no saved key is 400 unknown_provider', async () => {
    assert.is((await put('openai', { key: KEY }, as('a', 'admin'))).status, 403);
    assert.is((await call({ method: 'GET', url: '/me/byok', headers: as('a', 'admin') })).status, 403);
    for (const p of ['sandbox', 'anthropic', 'nosuch']) assert.is((await put(p, { key: KEY })).json().error.code, 'unknown_provider', p);
    assert.is(openai.requests.length, 0);
  });

  test('a key that cannot be one, or a bad label, is refused before the provider is asked', async () => {
    assert.equal([(await put('openai', { key: 'short' })).json().error.code], ['bad_key']);
    assert.match((await put('openai', { key: KEY, label: ' ' })).json().error.message, /Invalid 'label'/);
    assert.is(openai.requests.length, 0);
  });

  test('the provider decides: a refused key is 400 bad_key, an unreachable provider 503; nothing is saved', async () => {
    const refused = await put('openai', { key: 'sk-rejected-key-1234' });
    assert.equal([refused.status, refused.json().error.code], [400, 'bad_key']);
    assert.match(refused.json().error.message, /nothing was saved/);
    const unreachable = await put('together', { key: KEY });
    assert.equal([unreachable.status, unreachable.json().error.code], [503, 'unavailable']);
    const list = (await call({ method: 'GET', url: '/me/byok', headers: as('a', 'owner') })).json().data;
    assert.ok(list.every((p: { saved: unknown }) => p.saved === null));
    assert.equal(published, []);
  });

  test('a saved key is sealed and masked, its models listed, and the data plane given it; another org sees none of it', async () => {
    const r = await put('openai', { key: KEY, label: ' team key ', always_use: true });
    assert.is(r.status, 200);
    assert.equal(r.json(), {
      provider: 'openai', key: 'sk-…wxyz', label: 'team key', always_use: true, models: 1,
      verified_at: new Date(clock.now()).toISOString(), updated_at: new Date(clock.now()).toISOString(),
    });
    assert.is(openai.requests[0].headers.authorization, `Bearer ${KEY}`);
    assert.equal(published, [[orgs.org.a, 'openai', { key: KEY, alwaysUse: true }]]);
    const stored = await store.find(orgs.org.a, 'openai');
    assert.ok(stored && !stored.keySealed.includes('org-own-key'));
    const models = await call({ method: 'GET', url: '/me/byok/openai/models', headers: as('a', 'owner') });
    assert.equal(models.json(), { provider: 'openai', data: [{ id: 'mock-model', model: 'openai/mock-model' }] });
    assert.is((await call({ method: 'GET', url: '/me/byok/openai/models', headers: as('b', 'owner') })).status, 404);
    assert.is((await call({ method: 'DELETE', url: '/me/byok/openai', headers: as('b', 'owner') })).status, 404);
  });

  test('a check of the saved key asks the provider with it and refreshes when it was verified', async () => {
    clock.advance(60_000);
    const r = await call({ method: 'POST', url: '/me/byok/openai/test', headers: as('a', 'owner') });
    const now = new Date(clock.now()).toISOString();
    assert.equal(r.json(), { provider: 'openai', result: 'ok', message: null, models: 1, checked_at: now });
    assert.is(openai.requests[0].headers.authorization, `Bearer ${KEY}`);
    const saved = (await call({ method: 'GET', url: '/me/byok', headers: as('a', 'owner') })).json().data.find((p: { provider: string }) => p.provider === 'openai').saved;
    assert.is(saved.verified_at, now);
  });

  test('at start the saved keys are published, but not when turned off, and not one sealed under another master key', async () => {
    await service({ enabled: false }).publishAll();
    assert.equal(published, []);
    await service().publishAll();
    assert.equal(published, [[orgs.org.a, 'openai', { key: KEY, alwaysUse: true }]]);
    published.length = 0;
    warnings.length = 0;
    await service({ master: randomBytes(32) }).publishAll();
    assert.equal(published, []);
    assert.match(warnings.join('\n'), /does not open/);
  });

  test('a removed key leaves the data plane at once (null); a second remove is 404', async () => {
    assert.equal((await call({ method: 'DELETE', url: '/me/byok/openai', headers: as('a', 'owner') })).json(), { provider: 'openai', deleted: true });
    assert.equal(published, [[orgs.org.a, 'openai', null]]);
    assert.is((await call({ method: 'DELETE', url: '/me/byok/openai', headers: as('a', 'owner') })).status, 404);
  });

  test('saving again replaces the key but keeps when it was first saved', async () => {
    const first = await store.save({ orgId: orgs.org.b, provider: 'groq', keySealed: 's1', keyHint: 'h1', label: null, alwaysUse: false, models: ['m1'] }, 1_000);
    const again = await store.save({ orgId: orgs.org.b, provider: 'groq', keySealed: 's2', keyHint: 'h2', label: 'l', alwaysUse: true, models: ['m2'] }, 2_000);
    assert.equal(first, { orgId: orgs.org.b, provider: 'groq', keySealed: 's1', keyHint: 'h1', label: null, alwaysUse: false, models: ['m1'],
      verifiedAt: 1_000, createdAt: 1_000, updatedAt: 1_000 });
    assert.equal(again, { orgId: orgs.org.b, provider: 'groq', keySealed: 's2', keyHint: 'h2', label: 'l', alwaysUse: true, models: ['m2'],
      verifiedAt: 2_000, createdAt: 1_000, updatedAt: 2_000 });
    await store.markVerified(orgs.org.b, 'groq', ['m3'], 3_000);
    assert.equal([(await store.find(orgs.org.b, 'groq'))!.models, (await store.find(orgs.org.b, 'groq'))!.verifiedAt], [['m3'], 3_000]);
    assert.equal((await store.all()).map((k) => k.provider), ['groq']);
  });
});
