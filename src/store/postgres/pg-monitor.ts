import type { AlertChange, DeliveryRow, MonitorStore } from '../../domain/stores/monitor-store.js';
import type { Pg } from './pg-database.js';
import { canariesSince, findAlert, listAlerts } from './pg-monitoring.js';

/**
 * The MonitorStore on PostgreSQL, shared by every instance's monitor. An alert's change applies
 * only from the state its judge read (`WHERE firing = …`): of two instances judging one alert at
 * once, the second finds it changed and queues nothing. A delivery is claimed by moving its due
 * time past a lease in the statement that picks it, skipping rows another instance is claiming
 * (FOR UPDATE SKIP LOCKED): a row is handed to one instance at a time.
 */
export function postgresMonitorStore(sql: Pg): MonitorStore {
  return {
    monitoredCollectionIds: async () => (await sql<{ id: string }[]>`SELECT id FROM collections WHERE monitored = 1`).map((r) => r.id),
    insertCanaries: async (collectionId, rows) => {
      if (rows.length === 0) return;
      await sql`INSERT INTO canaries ${sql(rows.map((r) => ({
        collection_id: collectionId, route: r.route, at: r.at, ok: r.ok ? 1 : 0, latency_ms: r.latency_ms, error: r.error,
      })))}`;
    },
    canariesSince: (id, since) => canariesSince(sql, id, since),
    pruneCanaries: async (before) => {
      await sql`DELETE FROM canaries WHERE at < ${before}`;
    },
    listAlerts: (id) => listAlerts(sql, id),
    findAlert: (id) => findAlert(sql, id),
    recordAlertValue: async (id, value) => {
      await sql`UPDATE alerts SET last_value = ${value} WHERE id = ${id}`;
    },
    changeAlert: (c: AlertChange) => sql.begin(async (tx) => {
      const firing = !c.wasFiring;
      const state = firing ? 'firing' : 'resolved';
      const flipped = await tx`UPDATE alerts SET firing = ${firing ? 1 : 0}, last_value = ${c.value},
        last_fired_at = COALESCE(${firing ? c.now : null}::bigint, last_fired_at), last_delivery = ${`${state}: delivering`}
        WHERE id = ${c.alertId} AND firing = ${c.wasFiring ? 1 : 0}`;
      if (flipped.count === 0) return false;
      await tx`INSERT INTO alert_deliveries (alert_id, state, event, next_at, created_at) VALUES (${c.alertId}, ${state}, ${c.event}, ${c.now}, ${c.now})`;
      return true;
    }),
    claimDelivery: async (now, leaseUntil) => {
      // A row another instance holds (claiming it, or finishing it) is skipped: it is that instance's.
      const [row] = await sql<DeliveryRow[]>`WITH due AS (
          SELECT id, next_at FROM alert_deliveries d
          WHERE next_at <= ${now} AND id = (SELECT MIN(id) FROM alert_deliveries e WHERE e.alert_id = d.alert_id)
          ORDER BY next_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        UPDATE alert_deliveries a SET next_at = ${leaseUntil} FROM due WHERE a.id = due.id
        RETURNING a.id, a.alert_id, a.state, a.event, a.attempts, due.next_at`;
      return row ?? null;
    },
    nextDeliveryAt: async () => (await sql<{ at: number | null }[]>`SELECT MIN(next_at) AS at FROM alert_deliveries`)[0]!.at,
    retryDelivery: async (id, nextAt, error) => {
      await sql`UPDATE alert_deliveries SET attempts = attempts + 1, next_at = ${nextAt}, last_error = ${error} WHERE id = ${id}`;
    },
    releaseDelivery: async (id, dueAt) => {
      await sql`UPDATE alert_deliveries SET next_at = ${dueAt} WHERE id = ${id}`;
    },
    finishDelivery: (d, outcome) => sql.begin(async (tx) => {
      await tx`DELETE FROM alert_deliveries WHERE id = ${d.id}`;
      await tx`UPDATE alerts SET last_delivery = ${outcome} WHERE id = ${d.alert_id}`;
    }),
  };
}
