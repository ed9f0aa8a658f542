import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { loadCatalog } from '../../src/catalog/load.js';
import { loadConfig } from '../../src/config/load.js';
import { ProxyDispatchers } from '../../src/control/proxy-dispatchers.js';
import { UpstreamClient } from '../../src/dataplane/upstream-client.js';
import type { CollectionStore } from '../../src/domain/stores/collection-store.js';
import type { MonitorStore } from '../../src/domain/stores/monitor-store.js';
import type { MonitoringStore } from '../../src/domain/stores/monitoring-store.js';
import { newId } from '../../src/lib/ids.js';
import { createLogger } from '../../src/lib/logger.js';
import { Monitor } from '../../src/monitoring/monitor.js';
import { sqliteCollectionStore } from '../../src/store/collections.js';
import { sqliteMonitorStore } from '../../src/store/monitor-store.js';
import { sqliteMonitoringStore } from '../../src/store/monitoring.js';
import { postgresCollectionStore } from '../../src/store/postgres/pg-collections.js';
import { postgresMonitorStore } from '../../src/store/postgres/pg-monitor.js';
import { postgresMonitoringStore } from '../../src/store/postgres/pg-monitoring.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { eachBackend } from '../support/store-backends.js';

// Two gateway instances' monitors on one database (PostgreSQL is where this happens; SQLite keeps
// the same rules): a collection judged by both at once has its alert's change queued and delivered
// once, and an outbox drained by both at once, side by side, delivers every queued change once.

/** Polls an async condition (a database read) until it holds. */
async function until(fn: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

eachBackend('two monitors on one database', (test, be) => {
  let groq: MockProvider;
  let hook: Server;
  let hookUrl: string;
  /** Deliveries as received: "alert id state". */
  const received: string[] = [];
  /** While set, the receiver holds the first answers until this many are in flight at once. */
  let holdFor = 0;
  let held: (() => void)[] = [];
  let mostInFlight = 0;
  let inFlight = 0;
  let collections: CollectionStore;
  let monitoring: MonitoringStore;
  let stores: MonitorStore[];
  let monitors: Monitor[];
  let orgId: string;

  const config = () => loadConfig({
    env: {}, overrides: {
      monitoring: { allowInternalWebhooks: true, retryBaseMs: 50, minCheckIntervalMs: 0 },
      providers: { groq: { baseUrl: groq.url, apiKey: 'g' } },
    },
  });
  const newMonitor = (store: MonitorStore) => {
    const c = config();
    return new Monitor({
      store, collections, catalog: loadCatalog(c, {}), upstream: new UpstreamClient(c.upstream), clock: { now: () => Date.now() },
      log: createLogger('error'), config: c, masterKey: randomBytes(32), outbound: new ProxyDispatchers(c.upstream), mailer: null,
    });
  };
  const collection = async (name: string) => collections.create({
    orgId, forkedFrom: null, slug: () => `${name}-${newId('s').slice(-6).toLowerCase()}`,
    fields: { name, model: 'llama-3.3-70b-instruct', steps: [{ model: 'llama-3.3-70b-instruct', provider: 'groq' }], readmeMd: '', public: false },
  }, Date.now());
  const alertOn = async (collectionId: string) => (await monitoring.createAlert({
    id: newId('alert'), collection_id: collectionId, metric: 'error_rate', threshold: 0.5, window_minutes: 60,
    target_kind: 'webhook', target: hookUrl, secret_sealed: null,
  }, Date.now(), () => {})).id;
  const outboxEmpty = async () => (await stores[0]!.nextDeliveryAt()) === null;

  test.before(async () => {
    groq = await startMockProvider();
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const event = JSON.parse(body) as { alert_id: string; state: string };
        received.push(`${event.alert_id} ${event.state}`);
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        const answer = () => {
          inFlight--;
          res.statusCode = 200;
          res.end('ok');
        };
        held.push(answer);
        if (held.length >= holdFor) {
          // Together at once: from here on every answer is at once.
          holdFor = 0;
          const now = held;
          held = [];
          for (const a of now) a();
        }
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
    collections = be().pick(sqliteCollectionStore, postgresCollectionStore);
    monitoring = be().pick(sqliteMonitoringStore, postgresMonitoringStore);
    // Each instance has its own store (on PostgreSQL, its own queries on the shared pool's connections).
    stores = [be().pick(sqliteMonitorStore, postgresMonitorStore), be().pick(sqliteMonitorStore, postgresMonitorStore)];
    orgId = (await be().org('Watchers')).orgId;
  });
  test.before.each(() => {
    received.length = 0;
    holdFor = 0;
    mostInFlight = 0;
    monitors = stores.map(newMonitor);
  });
  test.after.each(async () => {
    for (const a of held) a();
    held = [];
    await Promise.all(monitors.map((m) => m.stop()));
  });
  test.after(async () => {
    await groq.close();
    await new Promise((r) => hook.close(r));
  });

  test('a collection checked by both monitors at once has its alert fire, and the change delivered, once', async () => {
    const c = await collection('judged');
    const alertId = await alertOn(c.id);
    groq.setDefault({ kind: 'status', status: 500 });
    await Promise.all(monitors.map((m) => m.check(c.id)));
    await until(async () => (await monitoring.findAlert(alertId))?.last_delivery === 'firing delivered: 200' && outboxEmpty(), 10_000, 'the firing delivered');
    await Promise.all(monitors.map((m) => m.stop()));
    assert.equal(received, [`${alertId} firing`]);
    assert.is((await monitoring.canariesSince(c.id, 0)).length, 2, 'each monitor kept its canary');
    // Healthy again: both judge it resolved; one change is queued and delivered.
    groq.setDefault({ kind: 'ok' });
    monitors = stores.map(newMonitor);
    for (let i = 0; i < 3; i++) await Promise.all(monitors.map((m) => m.check(c.id)));
    await until(async () => (await monitoring.findAlert(alertId))?.last_delivery === 'resolved delivered: 200' && outboxEmpty(), 10_000, 'the resolved delivered');
    await Promise.all(monitors.map((m) => m.stop()));
    assert.equal(received, [`${alertId} firing`, `${alertId} resolved`]);
  });

  test('an outbox drained by both monitors at once, side by side, delivers every queued change once', async () => {
    const c = await collection('queued');
    const alerts: string[] = [];
    for (let i = 0; i < 10; i++) {
      const alertId = await alertOn(c.id);
      alerts.push(alertId);
      assert.ok(await stores[0]!.changeAlert({ alertId, wasFiring: false, value: 1, event: JSON.stringify({ alert_id: alertId, state: 'firing' }), now: Date.now() }));
    }
    // The receiver answers the first delivery only once a second is in flight with it: one from each monitor.
    holdFor = 2;
    for (const m of monitors) m.start();
    await until(async () => received.length >= alerts.length && outboxEmpty(), 15_000, 'every change delivered');
    await Promise.all(monitors.map((m) => m.stop()));
    assert.equal(received.slice().sort(), alerts.map((a) => `${a} firing`).sort());
    assert.ok(mostInFlight >= 2, `both monitors delivered side by side (at most ${mostInFlight} in flight)`);
  });
});
