import * as assert from 'uvu/assert';
import type { MonitorStore } from '../../src/domain/stores/monitor-store.js';
import { newId } from '../../src/lib/ids.js';
import { sqliteCollectionStore } from '../../src/store/collections.js';
import { sqliteMonitorStore } from '../../src/store/monitor-store.js';
import { sqliteMonitoringStore } from '../../src/store/monitoring.js';
import { postgresCollectionStore } from '../../src/store/postgres/pg-collections.js';
import { postgresMonitorStore } from '../../src/store/postgres/pg-monitor.js';
import { postgresMonitoringStore } from '../../src/store/postgres/pg-monitoring.js';
import { eachBackend, type StoreBackend } from '../support/store-backends.js';

// The monitor's store over SQLite and over PostgreSQL: an alert's change is queued by one judge
// only, and an outbox row is one claimant's until its lease ends, an alert's changes in order.

/** A collection of a new org with one alert on it. */
async function alertOn(be: StoreBackend, now: number): Promise<{ collectionId: string; alertId: string }> {
  const { orgId } = await be.org(`org ${newId('o')}`);
  const c = await be.pick(sqliteCollectionStore, postgresCollectionStore).create({
    orgId, forkedFrom: null, slug: () => newId('slug').toLowerCase(),
    fields: { name: 'c', model: 'sandbox/echo', steps: [{ model: 'sandbox/echo', provider: null }], readmeMd: '', public: false },
  }, now);
  const a = await be.pick(sqliteMonitoringStore, postgresMonitoringStore).createAlert({
    id: newId('alert'), collection_id: c.id, metric: 'error_rate', threshold: 0.5, window_minutes: 15,
    target_kind: 'webhook', target: 'http://127.0.0.1:9/x', secret_sealed: null,
  }, now, () => {});
  return { collectionId: c.id, alertId: a.id };
}

eachBackend('monitor store', (test, be) => {
  let store: MonitorStore;
  let other: MonitorStore;
  const now = 1_000_000;

  test.before(() => {
    // Two instances' stores on one database.
    store = be().pick(sqliteMonitorStore, postgresMonitorStore);
    other = be().pick(sqliteMonitorStore, postgresMonitorStore);
  });

  test('two judges of one alert at once: one change applies and is queued, the other finds it changed', async () => {
    const { alertId } = await alertOn(be(), now);
    const change = (s: MonitorStore, value: number) => s.changeAlert({ alertId, wasFiring: false, value, event: `{"v":${value}}`, now });
    const applied = await Promise.all([change(store, 0.8), change(other, 0.9)]);
    assert.equal(applied.slice().sort(), [false, true]);
    const a = (await store.findAlert(alertId))!;
    assert.equal([a.firing, a.last_fired_at, a.last_delivery], [true, now, 'firing: delivering']);
    assert.is(a.last_value, applied[0] ? 0.8 : 0.9);
    const claimed = (await store.claimDelivery(now, now + 1_000))!;
    assert.equal([claimed.alert_id, claimed.state, claimed.event], [alertId, 'firing', a.last_value === 0.8 ? '{"v":0.8}' : '{"v":0.9}']);
    assert.is(await other.claimDelivery(now + 999, now + 2_000), null, 'one queued change, claimed');
    await store.finishDelivery(claimed, 'firing delivered: 200');
    await store.recordAlertValue(alertId, 0.7);
    const kept = (await store.findAlert(alertId))!;
    assert.equal([kept.firing, kept.last_value, kept.last_delivery], [true, 0.7, 'firing delivered: 200']);
  });

  test("a claim is the claimant's until its lease ends; released, it is due as it was; an alert's changes go out in order", async () => {
    const { alertId } = await alertOn(be(), now);
    assert.ok(await store.changeAlert({ alertId, wasFiring: false, value: 1, event: '{"s":"firing"}', now }));
    assert.ok(await store.changeAlert({ alertId, wasFiring: true, value: 0, event: '{"s":"resolved"}', now: now + 10 }));
    const first = (await store.claimDelivery(now + 10, now + 1_000))!;
    assert.equal([first.state, first.attempts, first.next_at], ['firing', 0, now]);
    // The resolved change waits behind the firing one, which is leased.
    assert.is(await other.claimDelivery(now + 999, now + 5_000), null);
    assert.is(await store.nextDeliveryAt(), now + 10);
    // The claimant died: the lease ends and another instance takes it.
    const taken = (await other.claimDelivery(now + 1_000, now + 5_000))!;
    assert.equal([taken.id, taken.next_at], [first.id, now + 1_000]);
    await other.releaseDelivery(taken.id, first.next_at);
    const again = (await store.claimDelivery(now + 1_000, now + 5_000))!;
    assert.is(again.id, first.id);
    await store.retryDelivery(again.id, now + 3_000, '503');
    assert.is(await other.claimDelivery(now + 2_999, now + 9_000), null, 'the retry is not due yet, and the resolved change waits behind it');
    const retried = (await other.claimDelivery(now + 3_000, now + 9_000))!;
    assert.equal([retried.id, retried.attempts], [first.id, 1]);
    await other.finishDelivery(retried, 'firing delivered: 200 (attempt 2)');
    const second = (await store.claimDelivery(now + 3_000, now + 9_000))!;
    assert.equal([second.state, second.event], ['resolved', '{"s":"resolved"}']);
    await store.finishDelivery(second, 'resolved delivered: 200');
    assert.is(await store.nextDeliveryAt(), null);
    assert.is((await store.findAlert(alertId))!.last_delivery, 'resolved delivered: 200');
  });

  test('many due deliveries claimed by two instances at once: each is handed out once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { alertId } = await alertOn(be(), now);
      ids.push(alertId);
      await store.changeAlert({ alertId, wasFiring: false, value: 1, event: '{}', now });
    }
    const claimed: string[] = [];
    const drain = async (s: MonitorStore) => {
      for (let row = await s.claimDelivery(now, now + 60_000); row !== null; row = await s.claimDelivery(now, now + 60_000)) claimed.push(row.alert_id);
    };
    await Promise.all([drain(store), drain(other), drain(store), drain(other)]);
    assert.equal(claimed.slice().sort(), ids.slice().sort());
  });

  test('monitored collections and canaries', async () => {
    const { collectionId } = await alertOn(be(), now);
    await be().pick(sqliteMonitoringStore, postgresMonitoringStore).setMonitored(collectionId, true);
    assert.ok((await store.monitoredCollectionIds()).includes(collectionId));
    await store.insertCanaries(collectionId, [{ route: 'r', at: now, ok: true, latency_ms: 1.5, error: null }]);
    assert.equal(await other.canariesSince(collectionId, now), [{ route: 'r', at: now, ok: true, latency_ms: 1.5, error: null }]);
    assert.equal((await store.listAlerts(collectionId)).map((a) => a.firing), [false]);
  });
});
