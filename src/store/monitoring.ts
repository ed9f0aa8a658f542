import { newId } from '../lib/ids.js';
import type { Db } from './database.js';
import type { AlertRow, CanaryRow, MonitoringStore } from '../domain/stores/monitoring-store.js';

export type { AlertRow, CanaryRow };


type RawAlert = Omit<AlertRow, 'firing'> & { firing: number };
const alert = (r: RawAlert): AlertRow => ({ ...r, firing: r.firing === 1 });

export function setMonitored(db: Db, collectionId: string, monitored: boolean): void {
  db.prepare('UPDATE collections SET monitored = ? WHERE id = ?').run(monitored ? 1 : 0, collectionId);
}

export function monitoredCollectionIds(db: Db): string[] {
  return db.prepare('SELECT id FROM collections WHERE monitored = 1').pluck().all() as string[];
}

export function insertCanaries(db: Db, collectionId: string, rows: readonly CanaryRow[]): void {
  const stmt = db.prepare('INSERT INTO canaries (collection_id, route, at, ok, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const r of rows) stmt.run(collectionId, r.route, r.at, r.ok ? 1 : 0, r.latency_ms, r.error);
  })();
}

/** A collection's canaries since `since`, oldest first. */
export function canariesSince(db: Db, collectionId: string, since: number): CanaryRow[] {
  return (db.prepare('SELECT route, at, ok, latency_ms, error FROM canaries WHERE collection_id = ? AND at >= ? ORDER BY at, id')
    .all(collectionId, since) as (Omit<CanaryRow, 'ok'> & { ok: number })[]).map((r) => ({ ...r, ok: r.ok === 1 }));
}

/** Canaries older than `before` are dropped (the health window is at most 90 days). */
export function pruneCanaries(db: Db, before: number): void {
  db.prepare('DELETE FROM canaries WHERE at < ?').run(before);
}

export function listAlerts(db: Db, collectionId: string): AlertRow[] {
  return (db.prepare('SELECT * FROM alerts WHERE collection_id = ? ORDER BY created_at, id').all(collectionId) as RawAlert[]).map(alert);
}

export function countAlerts(db: Db, collectionId: string): number {
  return db.prepare('SELECT COUNT(*) FROM alerts WHERE collection_id = ?').pluck().get(collectionId) as number;
}

export function findAlert(db: Db, id: string): AlertRow | null {
  const r = db.prepare('SELECT * FROM alerts WHERE id = ?').get(id) as RawAlert | undefined;
  return r ? alert(r) : null;
}

export function insertAlert(db: Db, id: string,
  a: Pick<AlertRow, 'collection_id' | 'metric' | 'threshold' | 'window_minutes' | 'target_kind' | 'target' | 'secret_sealed'>, now: number): void {
  db.prepare(`INSERT INTO alerts (id, collection_id, metric, threshold, window_minutes, target_kind, target, secret_sealed, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(id, a.collection_id, a.metric, a.threshold, a.window_minutes, a.target_kind, a.target, a.secret_sealed, now);
}

export function newAlertId(): string {
  return newId('alert');
}

export function deleteAlert(db: Db, id: string): void {
  db.prepare('DELETE FROM alerts WHERE id = ?').run(id);
}

export function recordAlertState(db: Db, id: string, firing: boolean, value: number | null, firedAt: number | null, delivery: string | null): void {
  db.prepare('UPDATE alerts SET firing = ?, last_value = ?, last_fired_at = COALESCE(?, last_fired_at), last_delivery = COALESCE(?, last_delivery) WHERE id = ?')
    .run(firing ? 1 : 0, value, firedAt, delivery, id);
}

export interface DeliveryRow {
  id: number;
  alert_id: string;
  state: 'firing' | 'resolved';
  event: string;
  attempts: number;
  next_at: number;
}

/** Queues one change of an alert for delivery, due at once. */
export function enqueueDelivery(db: Db, alertId: string, state: 'firing' | 'resolved', event: string, now: number): void {
  db.prepare('INSERT INTO alert_deliveries (alert_id, state, event, next_at, created_at) VALUES (?, ?, ?, ?, ?)').run(alertId, state, event, now, now);
}

/** Deliveries due at `now`, each the oldest of its alert, so an alert's changes arrive in order. */
export function dueDeliveries(db: Db, now: number, limit: number): DeliveryRow[] {
  return db.prepare(`SELECT id, alert_id, state, event, attempts, next_at FROM alert_deliveries d
    WHERE next_at <= ? AND id = (SELECT MIN(id) FROM alert_deliveries e WHERE e.alert_id = d.alert_id)
    ORDER BY next_at LIMIT ?`).all(now, limit) as DeliveryRow[];
}

/** When the next queued delivery falls due, or null with none queued. */
export function nextDeliveryAt(db: Db): number | null {
  return db.prepare('SELECT MIN(next_at) FROM alert_deliveries').pluck().get() as number | null;
}

export function retryDelivery(db: Db, id: number, nextAt: number, error: string): void {
  db.prepare('UPDATE alert_deliveries SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE id = ?').run(nextAt, error, id);
}

/** Removes a delivery made or given up, recording the outcome on its alert. */
export function finishDelivery(db: Db, d: DeliveryRow, outcome: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM alert_deliveries WHERE id = ?').run(d.id);
    db.prepare('UPDATE alerts SET last_delivery = ? WHERE id = ?').run(outcome, d.alert_id);
  })();
}

/** The MonitoringStore on SQLite. */
export function sqliteMonitoringStore(db: Db): MonitoringStore {
  const create = db.transaction((a: Parameters<MonitoringStore['createAlert']>[0], now: number, check: (alerts: number) => void) => {
    check(countAlerts(db, a.collection_id));
    insertAlert(db, a.id, a, now);
    return findAlert(db, a.id)!;
  });
  return {
    setMonitored: async (id, monitored) => setMonitored(db, id, monitored),
    canariesSince: async (id, since) => canariesSince(db, id, since),
    listAlerts: async (id) => listAlerts(db, id),
    findAlert: async (id) => findAlert(db, id),
    createAlert: async (a, now, check) => create.immediate(a, now, check),
    deleteAlert: async (id) => deleteAlert(db, id),
  };
}
