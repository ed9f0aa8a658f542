import type { Logger } from '../../lib/logger.js';
import type { PaymentService } from './payment-service.js';

/**
 * Credits top-ups whose payment reached neither the checkout verification nor the webhook (the
 * customer closed the tab, the webhook is not configured or was lost): a round of
 * PaymentService.reconcile every `everyMs`, one at a time, off the request path.
 */
export class PaymentReconciler {
  readonly #d: { payments: PaymentService; log: Logger; everyMs: number };
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;

  constructor(d: { payments: PaymentService; log: Logger; everyMs: number }) {
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
  round(): Promise<number> {
    return this.#d.payments.reconcile();
  }
}
