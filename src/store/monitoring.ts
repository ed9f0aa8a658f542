import type { Db } from './database.js';
import type { AlertRow, CanaryRow, MonitoringStore } from '../domain/stores/monitoring-store.js';

export type { AlertRow, CanaryRow };


type RawAlert = Omit<AlertRow, 'firing'> & { firing: number };
const alert = (r: RawAlert): AlertRow => ({ ...r, firing: r.firing === 1 });

export function setMonitored(db: Db, collectionId: string, monitored: boolean): void {
  db.prepare('UPDATE collections SET monitored = ? WHERE id = ?').run(monitored ? 1 : 0, collectionId);
}

/** A collection's canaries since `since`, oldest first. */
export function canariesSince(db: Db, collectionId: string, since: number): CanaryRow[] {
  return (db.prepare('SELECT route, at, ok, latency_ms, error FROM canaries WHERE collection_id = ? AND at >= ? ORDER BY at, id')
    .all(collectionId, since) as (Omit<CanaryRow, 'ok'> & { ok: number })[]).map((r) => ({ ...r, ok: r.ok === 1 }));
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

export function deleteAlert(db: Db, id: string): void {
  db.prepare('DELETE FROM alerts WHERE id = ?').run(id);
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
