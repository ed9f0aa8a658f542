/** One canary call of a collection's step. */
export interface CanaryRow {
  route: string;
  at: number;
  ok: boolean;
  latency_ms: number;
  error: string | null;
}

export interface AlertRow {
  id: string;
  collection_id: string;
  metric: 'error_rate' | 'latency_p95';
  threshold: number;
  window_minutes: number;
  target_kind: 'webhook' | 'email';
  target: string;
  secret_sealed: string | null;
  firing: boolean;
  last_value: number | null;
  last_fired_at: number | null;
  last_delivery: string | null;
  created_at: number;
}

export type NewAlert = Pick<AlertRow, 'id' | 'collection_id' | 'metric' | 'threshold' | 'window_minutes' | 'target_kind' | 'target' | 'secret_sealed'>;

/** Collections' monitoring as the monitoring service reads and changes it (one atomic operation a method). */
export interface MonitoringStore {
  setMonitored(collectionId: string, monitored: boolean): Promise<void>;
  /** A collection's canaries since `since`, oldest first. */
  canariesSince(collectionId: string, since: number): Promise<CanaryRow[]>;
  listAlerts(collectionId: string): Promise<AlertRow[]>;
  findAlert(id: string): Promise<AlertRow | null>;
  /** Inserts an alert; `check` runs in the insert's transaction on the collection's alert count and throws to refuse. */
  createAlert(a: NewAlert, now: number, check: (alerts: number) => void): Promise<AlertRow>;
  deleteAlert(id: string): Promise<void>;
}
