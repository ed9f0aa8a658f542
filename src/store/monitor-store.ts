import type { AlertChange, DeliveryRow, MonitorStore } from '../domain/stores/monitor-store.js';
import type { CanaryRow } from '../domain/stores/monitoring-store.js';
import type { Db } from './database.js';
import { canariesSince, findAlert, listAlerts } from './monitoring.js';

/**
 * The MonitorStore on SQLite: statements prepared once; a change of an alert and its outbox row,
 * and a delivery's claim, each in one immediate transaction. One gateway process holds a SQLite
 * database, so the claims never compete here; they keep the outbox's rules those of PostgreSQL's.
 */
export function sqliteMonitorStore(db: Db): MonitorStore {
  const monitored = db.prepare('SELECT id FROM collections WHERE monitored = 1').pluck();
  const insertCanary = db.prepare('INSERT INTO canaries (collection_id, route, at, ok, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?)');
  const prune = db.prepare('DELETE FROM canaries WHERE at < ?');
  const value = db.prepare('UPDATE alerts SET last_value = ? WHERE id = ?');
  const flip = db.prepare(`UPDATE alerts SET firing = ?, last_value = ?, last_fired_at = COALESCE(?, last_fired_at), last_delivery = ?
    WHERE id = ? AND firing = ?`);
  const enqueue = db.prepare('INSERT INTO alert_deliveries (alert_id, state, event, next_at, created_at) VALUES (?, ?, ?, ?, ?)');
  const due = db.prepare(`SELECT id, alert_id, state, event, attempts, next_at FROM alert_deliveries d
    WHERE next_at <= ? AND id = (SELECT MIN(id) FROM alert_deliveries e WHERE e.alert_id = d.alert_id)
    ORDER BY next_at, id LIMIT 1`);
  const setNextAt = db.prepare('UPDATE alert_deliveries SET next_at = ? WHERE id = ?');
  const next = db.prepare('SELECT MIN(next_at) FROM alert_deliveries').pluck();
  const retry = db.prepare('UPDATE alert_deliveries SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM alert_deliveries WHERE id = ?');
  const outcome = db.prepare('UPDATE alerts SET last_delivery = ? WHERE id = ?');

  const insertCanaries = db.transaction((collectionId: string, rows: readonly CanaryRow[]) => {
    for (const r of rows) insertCanary.run(collectionId, r.route, r.at, r.ok ? 1 : 0, r.latency_ms, r.error);
  });
  const change = db.transaction((c: AlertChange): boolean => {
    const firing = !c.wasFiring;
    const state = firing ? 'firing' : 'resolved';
    if (flip.run(firing ? 1 : 0, c.value, firing ? c.now : null, `${state}: delivering`, c.alertId, c.wasFiring ? 1 : 0).changes === 0) return false;
    enqueue.run(c.alertId, state, c.event, c.now, c.now);
    return true;
  });
  const claim = db.transaction((now: number, leaseUntil: number): DeliveryRow | null => {
    const row = due.get(now) as DeliveryRow | undefined;
    if (row === undefined) return null;
    setNextAt.run(leaseUntil, row.id);
    return row;
  });
  const finish = db.transaction((d: DeliveryRow, text: string) => {
    remove.run(d.id);
    outcome.run(text, d.alert_id);
  });
  return {
    monitoredCollectionIds: async () => monitored.all() as string[],
    insertCanaries: async (id, rows) => insertCanaries(id, rows),
    canariesSince: async (id, since) => canariesSince(db, id, since),
    pruneCanaries: async (before) => {
      prune.run(before);
    },
    listAlerts: async (id) => listAlerts(db, id),
    findAlert: async (id) => findAlert(db, id),
    recordAlertValue: async (id, v) => {
      value.run(v, id);
    },
    changeAlert: async (c) => change.immediate(c),
    claimDelivery: async (now, leaseUntil) => claim.immediate(now, leaseUntil),
    nextDeliveryAt: async () => next.get() as number | null,
    retryDelivery: async (id, nextAt, error) => {
      retry.run(nextAt, error, id);
    },
    releaseDelivery: async (id, dueAt) => {
      setNextAt.run(dueAt, id);
    },
    finishDelivery: async (d, text) => finish(d, text),
  };
}
