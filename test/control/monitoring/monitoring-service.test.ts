import * as assert from 'uvu/assert';
import { loadCatalog } from '../../../src/catalog/load.js';
import { loadConfig } from '../../../src/config/load.js';
import { manualClock } from '../../../src/lib/clock.js';
import { monitoringRoutes } from '../../../src/control/monitoring/monitoring-routes.js';
import { MonitoringService } from '../../../src/control/monitoring/monitoring-service.js';
import type { CollectionStore } from '../../../src/domain/stores/collection-store.js';
import type { MonitoringStore } from '../../../src/domain/stores/monitoring-store.js';
import { sqliteCollectionStore } from '../../../src/store/collections.js';
import { sqliteMonitorStore } from '../../../src/store/monitor-store.js';
import { sqliteMonitoringStore } from '../../../src/store/monitoring.js';
import { postgresCollectionStore } from '../../../src/store/postgres/pg-collections.js';
import { postgresMonitorStore } from '../../../src/store/postgres/pg-monitor.js';
import { postgresMonitoringStore } from '../../../src/store/postgres/pg-monitoring.js';
import { eachBackend } from '../../support/store-backends.js';
import { as, injector, type TwoOrgs } from '../in-process.js';

// Monitoring through its routes, in process: roles, another org's collection out of reach, the
// on-request check's spacing, alert thresholds, targets and the per-collection cap; over SQLite and
// over PostgreSQL, where concurrent alert creations must keep the cap.

const config = loadConfig({ env: {} });
const catalog = loadCatalog(config, {});
const clock = manualClock(Date.UTC(2026, 0, 5, 6, 30));
const CAP = 2;

eachBackend('monitoring', (test, be) => {
  let orgs: Pick<TwoOrgs, 'org'>;
  let collections: CollectionStore;
  let monitoring: MonitoringStore;
  let service: MonitoringService;
  const checked: string[] = [];
  let call: ReturnType<typeof injector>;

  let slug = '';
  test.before(async () => {
    orgs = { org: { a: (await be().org('Org A')).orgId, b: (await be().org('Org B')).orgId } };
    collections = be().pick(sqliteCollectionStore, postgresCollectionStore);
    monitoring = be().pick(sqliteMonitoringStore, postgresMonitoringStore);
    service = new MonitoringService({
      monitoring, collections, catalog, clock, masterKey: Buffer.alloc(32, 7),
      settings: { ...config.monitoring, maxAlertsPerCollection: CAP, minCheckIntervalMs: 60_000, allowInternalWebhooks: true },
      canMail: false, check: async (id) => { checked.push(id); },
    });
    call = injector(monitoringRoutes(service), orgs);
    const c = await collections.create({
      orgId: orgs.org.a, forkedFrom: null, slug: () => 'echo-abc123',
      fields: { name: 'Echo', model: 'sandbox/echo', steps: [{ model: 'sandbox/echo', provider: null }], readmeMd: '', public: false },
    }, clock.now());
    slug = c.slug;
  });

  test('monitoring on and off is for admins of the owning org; another org sees no such collection', async () => {
    const url = `/me/collections/${slug}/monitor`;
    assert.is((await call({ method: 'POST', url, headers: as('a', 'member'), body: { monitored: true } })).status, 403);
    assert.is((await call({ method: 'POST', url, headers: as('b', 'admin'), body: { monitored: true } })).status, 404);
    const on = await call({ method: 'POST', url, headers: as('a', 'admin'), body: { monitored: true } });
    assert.equal(on.json(), { slug, monitored: true });
    assert.is((await collections.findBySlug(slug))!.monitored, true);
  });

  test('a check on request runs the monitor, then is refused with 429 until the interval has passed', async () => {
    const url = `/me/collections/${slug}/check`;
    const first = await call({ method: 'POST', url, headers: as('a', 'member') });
    assert.is(first.status, 200);
    assert.is(first.json().slug, slug);
    assert.is(checked.length, 1);
    const again = await call({ method: 'POST', url, headers: as('a', 'member') });
    assert.is(again.status, 429);
    clock.advance(60_000);
    assert.is((await call({ method: 'POST', url, headers: as('a', 'member') })).status, 200);
    assert.is(checked.length, 2);
  });

  test('health takes days 1 to 90', async () => {
    const url = `/me/collections/${slug}/health`;
    assert.is((await call({ method: 'GET', url: `${url}?days=91`, headers: as('a', 'member') })).status, 400);
    const h = await call({ method: 'GET', url: `${url}?days=3`, headers: as('a', 'member') });
    assert.is(h.json().days, 3);
  });

  test('health is read from the canaries of its window only, oldest first', async () => {
    const c = (await collections.findBySlug(slug))!;
    const monitor = be().pick(sqliteMonitorStore, postgresMonitorStore);
    const at = clock.now();
    const { route } = (await call({ method: 'GET', url: `/me/collections/${slug}/health?days=1`, headers: as('a', 'member') })).json().steps[0];
    await monitor.insertCanaries(c.id, [
      { route, at: at - 4 * 86_400_000, ok: false, latency_ms: 9, error: 'old' },
      { route, at: at - 2_000, ok: true, latency_ms: 12.5, error: null },
      { route, at: at - 1_000, ok: false, latency_ms: 40, error: 'upstream 500: x' },
    ]);
    assert.equal(await monitoring.canariesSince(c.id, at - 86_400_000), [
      { route, at: at - 2_000, ok: true, latency_ms: 12.5, error: null },
      { route, at: at - 1_000, ok: false, latency_ms: 40, error: 'upstream 500: x' },
    ]);
    const h = (await call({ method: 'GET', url: `/me/collections/${slug}/health?days=1`, headers: as('a', 'member') })).json();
    const again = (await call({ method: 'GET', url: `/me/collections/${slug}/health?days=5`, headers: as('a', 'member') })).json();
    assert.equal([h.canaries, h.error_rate, h.steps[0].last_canary.error], [2, 0.5, 'upstream 500: x']);
    assert.equal([again.canaries, again.steps[0].canaries], [3, 3]);
    await monitor.pruneCanaries(at - 3 * 86_400_000);
    assert.is((await monitoring.canariesSince(c.id, 0)).length, 2);
  });

  test('alerts: thresholds in range, one target, no email without SMTP, a signed webhook, at most the cap', async () => {
    const url = `/me/collections/${slug}/alerts`;
    const make = (body: object) => call({ method: 'POST', url, headers: as('a', 'admin'), body });
    assert.is((await make({ metric: 'error_rate', threshold: 1.5, target: { webhook: 'http://127.0.0.1:9/x' } })).status, 400);
    assert.is((await make({ metric: 'error_rate', threshold: 0.5, target: {} })).status, 400);
    const mail = await make({ metric: 'error_rate', threshold: 0.5, target: { email: 'ops@example.com' } });
    assert.is(mail.json().error.code, 'unavailable');
    const made = await make({ metric: 'latency_p95', threshold: 2000, target: { webhook: 'http://127.0.0.1:9/x' } });
    assert.is(made.status, 201);
    assert.match(made.json().secret, /^whsec_/);
    assert.is((await make({ metric: 'error_rate', threshold: 0.2, target: { webhook: 'http://127.0.0.1:9/y' } })).status, 201);
    const over = await make({ metric: 'error_rate', threshold: 0.3, target: { webhook: 'http://127.0.0.1:9/z' } });
    assert.is(over.json().error.code, 'cap');
    const list = await call({ method: 'GET', url, headers: as('a', 'member') });
    assert.is(list.json().data.length, CAP);
    assert.is(list.json().data[0].secret, undefined);
    const id = made.json().id;
    assert.is((await call({ method: 'DELETE', url: `${url}/${id}`, headers: as('b', 'admin') })).status, 404);
    assert.equal((await call({ method: 'DELETE', url: `${url}/${id}`, headers: as('a', 'admin') })).json(), { id, deleted: true });
  });

  test('concurrent alert creations on one collection stop at the cap', async () => {
    const c = await collections.create({
      orgId: orgs.org.a, forkedFrom: null, slug: () => 'race-abc123',
      fields: { name: 'Race', model: 'sandbox/echo', steps: [{ model: 'sandbox/echo', provider: null }], readmeMd: '', public: false },
    }, clock.now());
    const made = await Promise.allSettled(Array.from({ length: 6 }, (_, i) =>
      service.createAlert(orgs.org.a, c.slug, { metric: 'error_rate', threshold: 0.5, windowMinutes: 15, target: { webhook: `http://127.0.0.1:9/${i}` } })));
    assert.is(made.filter((r) => r.status === 'fulfilled').length, CAP);
    for (const r of made) if (r.status === 'rejected') assert.is((r.reason as { code: string }).code, 'cap');
    assert.is((await monitoring.listAlerts(c.id)).length, CAP);
  });
});
