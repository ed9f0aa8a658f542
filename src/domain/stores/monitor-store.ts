import type { AlertRow, CanaryRow } from './monitoring-store.js';

/** One queued change of an alert, waiting in the outbox for delivery. */
export interface DeliveryRow {
  id: number;
  alert_id: string;
  state: 'firing' | 'resolved';
  /** The JSON body delivered. */
  event: string;
  attempts: number;
  next_at: number;
}

/** A judged alert whose state changes: what is kept on the alert and queued for delivery. */
export interface AlertChange {
  alertId: string;
  /** The state the judge read; the change applies only if the alert is still in it. */
  wasFiring: boolean;
  value: number;
  /** The outbox row's JSON body. */
  event: string;
  now: number;
}

/**
 * What the background monitor and its alert outbox read and change (one atomic operation a
 * method). Several gateway instances may run the monitor on one database: a change of an alert's
 * state is queued by the one instance whose change applies, and an outbox row is claimed by one
 * instance before it is delivered, so each change is delivered once.
 */
export interface MonitorStore {
  monitoredCollectionIds(): Promise<string[]>;
  insertCanaries(collectionId: string, rows: readonly CanaryRow[]): Promise<void>;
  /** A collection's canaries since `since`, oldest first. */
  canariesSince(collectionId: string, since: number): Promise<CanaryRow[]>;
  /** Drops canaries older than `before`. */
  pruneCanaries(before: number): Promise<void>;
  listAlerts(collectionId: string): Promise<AlertRow[]>;
  findAlert(id: string): Promise<AlertRow | null>;
  /** Keeps an alert's last value, its state unchanged. */
  recordAlertValue(id: string, value: number): Promise<void>;
  /**
   * Flips the alert out of `wasFiring` (firing: its fired time is `now`), marks it as delivering
   * and queues its delivery, due at once, in one transaction; false (nothing changed) when the
   * alert is no longer in `wasFiring` (another instance judged it first) or is gone.
   */
  changeAlert(c: AlertChange): Promise<boolean>;
  /**
   * Claims the next delivery due at `now` (the oldest queued of its alert, so an alert's changes
   * go out in order) for this instance until `leaseUntil`: it is not due to anyone else until
   * then. A claim not finished, retried or released by then (its instance died mid-delivery)
   * falls due again. Null when nothing is due.
   */
  claimDelivery(now: number, leaseUntil: number): Promise<DeliveryRow | null>;
  /** When the next queued delivery falls due, or null with none queued. */
  nextDeliveryAt(): Promise<number | null>;
  /** A failed attempt: counted, and due again at `nextAt`. */
  retryDelivery(id: number, nextAt: number, error: string): Promise<void>;
  /** Gives a claim back unattempted (the gateway stopping mid-delivery): due again at `dueAt`. */
  releaseDelivery(id: number, dueAt: number): Promise<void>;
  /** Removes a delivery made or given up, recording the outcome on its alert. */
  finishDelivery(d: DeliveryRow, outcome: string): Promise<void>;
}
