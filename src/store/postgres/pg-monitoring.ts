import type { AlertRow, CanaryRow, MonitoringStore } from '../../domain/stores/monitoring-store.js';
import type { Pg } from './pg-database.js';
import { lockScope, type Tx } from './pg-locks.js';

type RawAlert = Omit<AlertRow, 'firing'> & { firing: number };
const alert = (r: RawAlert): AlertRow => ({ ...r, firing: r.firing === 1 });

/** Reads the monitor's store (pg-monitor.ts) shares. */
export const canariesSince = async (sql: Pg, collectionId: string, since: number): Promise<CanaryRow[]> =>
  (await sql<(Omit<CanaryRow, 'ok'> & { ok: number })[]>`SELECT route, at, ok, latency_ms, error FROM canaries
    WHERE collection_id = ${collectionId} AND at >= ${since} ORDER BY at, id`).map((r) => ({ ...r, ok: r.ok === 1 }));
export const listAlerts = async (sql: Pg, collectionId: string): Promise<AlertRow[]> =>
  (await sql<RawAlert[]>`SELECT * FROM alerts WHERE collection_id = ${collectionId} ORDER BY created_at, id COLLATE "C"`).map(alert);
export const findAlert = async (q: Pg | Tx, id: string): Promise<AlertRow | null> => {
  const [r] = await q<RawAlert[]>`SELECT * FROM alerts WHERE id = ${id}`;
  return r ? alert(r) : null;
};

/** The MonitoringStore on PostgreSQL: a collection's alert count and a new alert under the collection's lock. */
export function postgresMonitoringStore(sql: Pg): MonitoringStore {
  return {
    setMonitored: async (id, monitored) => {
      await sql`UPDATE collections SET monitored = ${monitored ? 1 : 0} WHERE id = ${id}`;
    },
    canariesSince: (id, since) => canariesSince(sql, id, since),
    listAlerts: (id) => listAlerts(sql, id),
    findAlert: (id) => findAlert(sql, id),
    createAlert: (a, now, check) => sql.begin(async (tx) => {
      await lockScope(tx, `alerts:${a.collection_id}`);
      const [r] = await tx<{ count: number }[]>`SELECT COUNT(*) AS count FROM alerts WHERE collection_id = ${a.collection_id}`;
      check(r!.count);
      await tx`INSERT INTO alerts (id, collection_id, metric, threshold, window_minutes, target_kind, target, secret_sealed, created_at)
        VALUES (${a.id}, ${a.collection_id}, ${a.metric}, ${a.threshold}, ${a.window_minutes}, ${a.target_kind}, ${a.target},
          ${a.secret_sealed}, ${now})`;
      return (await findAlert(tx, a.id))!;
    }),
    deleteAlert: async (id) => {
      await sql`DELETE FROM alerts WHERE id = ${id}`;
    },
  };
}
