import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Db } from '../../store/database.js';
import { openOrdersSince } from '../../store/billing.js';
import type { PaymentApi } from './payment-api.js';
import { applyProviderPayment } from './provider-payment.js';

/** Orders are asked about for this long after they are made; checkouts do not stay open longer. */
const LOOKBACK_MS = 3 * 86_400_000;
/** At most this many orders per round, oldest first, so a backlog cannot flood the provider. */
const PER_ROUND = 100;

/**
 * Credits top-ups whose payment reached neither the checkout verification nor the webhook (the
 * customer closed the tab, the webhook is not configured or was lost): every round it asks the
 * provider for the payments of orders still open from the last three days, and applies them
 * exactly as the webhook does, so nothing is credited twice.
 */
export class PaymentReconciler {
  readonly #d: { db: Db; api: PaymentApi; clock: Clock; log: Logger; everyMs: number; credited: (orderId: string) => void };
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;

  constructor(d: { db: Db; api: PaymentApi; clock: Clock; log: Logger; everyMs: number; credited: (orderId: string) => void }) {
    this.#d = d;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.#round ??= this.round().then(() => undefined, (e: unknown) => this.#d.log.error('payment reconciliation failed', { err: String(e) }))
        .finally(() => (this.#round = null));
    }, this.#d.everyMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#round;
  }

  /** One pass over the open orders; returns how many were credited. */
  async round(): Promise<number> {
    const { db, api, clock, log } = this.#d;
    let credited = 0;
    for (const order of openOrdersSince(db, clock.now() - LOOKBACK_MS, PER_ROUND)) {
      let payments;
      try {
        payments = await api.orderPayments(order.id);
      } catch (e) {
        log.warn('could not reconcile an order with the payment provider', { order: order.id, err: (e as Error).message });
        continue;
      }
      // Captures first: an order with a failed try and a later capture is paid.
      payments.sort((a, b) => (a.status === b.status ? 0 : a.status === 'captured' ? -1 : 1));
      for (const p of payments) {
        if (applyProviderPayment(db, log, order, p, 'reconcile', clock.now()) === 'credited') {
          credited++;
          log.info('top-up credited by reconciliation', { order: order.id, payment: p.id });
          this.#d.credited(order.id);
        }
      }
    }
    return credited;
  }
}
