import { errors } from '../../errors/catalog.js';
import type { BillingStore, CreditedOrder, PaidVia, TopupOrder } from '../../domain/stores/billing-store.js';
import type { OrgStore } from '../../domain/stores/org-store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { microsToPaise, paiseToMicros } from '../../lib/money.js';
import { bonusStands } from './billing-rules.js';
import type { PaymentApi, ProviderPayment } from './payment-api.js';

/** Orders are asked about for this long after they are made; checkouts do not stay open longer. */
const RECONCILE_LOOKBACK_MS = 3 * 86_400_000;
/** At most this many orders per reconciliation round, oldest first, so a backlog cannot flood the provider. */
const RECONCILE_PER_ROUND = 100;

export type PaymentOutcome = 'credited' | 'already_credited' | 'recorded' | 'amount_mismatch';

export interface PaymentServiceDeps {
  billing: BillingStore;
  orgs: OrgStore;
  /** null until billing.payments and billing.seller.state are configured. */
  api: PaymentApi | null;
  clock: Clock;
  log: Logger;
  /** What follows a credit, whichever path made it: the data plane's balances, the owners' mail. */
  credited(orderId: string): void;
}

export interface CheckoutProof {
  orderId: string;
  paymentId: string;
  /** The checkout's HMAC-SHA256 of order_id|payment_id. */
  signature: string;
}

export interface CheckoutResult extends CreditedOrder {
  /** The org's balance after the credit (or after the earlier one). */
  balanceMicros: number;
}

/**
 * Top-up payments, whoever reports them: the browser's checkout proof (POST /me/billing/verify),
 * the provider's webhook and the reconciler. They land in any order and an order is credited
 * once: every path ends in one `#credit`, and the store marks the order paid and credits it in
 * one transaction, so whichever comes later changes nothing.
 */
export class PaymentService {
  readonly #d: PaymentServiceDeps;

  constructor(deps: PaymentServiceDeps) {
    this.#d = deps;
  }

  /** The payment provider; 503 billing_disabled while top-ups are not configured. */
  get api(): PaymentApi {
    if (!this.#d.api) throw errors.billingDisabled();
    return this.#d.api;
  }

  get enabled(): boolean {
    return this.#d.api !== null;
  }

  get takesWebhooks(): boolean {
    return this.#d.api !== null && this.#d.api.takesWebhooks;
  }

  /** Whether a webhook body is signed with the webhook secret. */
  webhookSigned(raw: Buffer, signature: string): boolean {
    return this.#d.api !== null && this.#d.api.webhookSigned(raw, signature);
  }

  /** The checkout's signed proof of payment credits the org's order (once). */
  async verifyCheckout(orgId: string, proof: CheckoutProof): Promise<CheckoutResult> {
    const api = this.api;
    const order = await this.#d.billing.findOrder(proof.orderId);
    if (!order || order.orgId !== orgId) throw errors.notFound(`No order '${proof.orderId}' in this organisation`);
    if (!api.checkoutSigned(proof.orderId, proof.paymentId, proof.signature)) {
      throw errors.badRequest('The checkout signature does not match this order and payment; nothing was credited');
    }
    const done = await this.#credit(order, { id: proof.paymentId, method: null }, 'checkout');
    const org = await this.#d.orgs.find(orgId);
    return { ...done, balanceMicros: org!.balanceMicros };
  }

  /** A payment the provider's webhook reported; an order this gateway did not make is `unknown_order`. */
  async report(orderId: string, p: ProviderPayment, via: PaidVia): Promise<PaymentOutcome | 'unknown_order'> {
    const order = await this.#d.billing.findOrder(orderId);
    if (!order) return 'unknown_order';
    return this.#apply(order, p, via);
  }

  /**
   * Asks the provider about orders still open from the last three days and applies their
   * payments as the webhook does (for a closed tab, a lost or unconfigured webhook); returns how
   * many orders were credited. An order the provider cannot be asked about now waits for the next round.
   */
  async reconcile(): Promise<number> {
    const { billing, clock, log } = this.#d;
    const api = this.api;
    let credited = 0;
    for (const order of await billing.openOrdersSince(clock.now() - RECONCILE_LOOKBACK_MS, RECONCILE_PER_ROUND)) {
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
        if (await this.#apply(order, p, 'reconcile') === 'credited') {
          credited++;
          log.info('top-up credited by reconciliation', { order: order.id, payment: p.id });
        }
      }
    }
    return credited;
  }

  /**
   * What a reported payment does to its order: a capture for the order's exact total credits it,
   * once; a capture for any other amount is never credited (the operator settles it); a failure
   * is recorded and leaves the order open.
   */
  async #apply(order: TopupOrder, p: ProviderPayment, via: PaidVia): Promise<PaymentOutcome> {
    const { billing, clock, log } = this.#d;
    if (p.status === 'failed') {
      await billing.recordFailedPayment(order, { id: p.id, amountMicros: paiseToMicros(p.amountPaise), method: p.method, error: p.error }, clock.now());
      return 'recorded';
    }
    const expected = microsToPaise(order.totalMicros);
    if (p.amountPaise !== expected) {
      log.error('payment amount differs from its order; not credited', { order: order.id, payment: p.id, paise: p.amountPaise, expected, via });
      return 'amount_mismatch';
    }
    const done = await this.#credit(order, p, via);
    if (!done.applied && done.order.paymentId !== p.id) {
      log.error('a second payment was captured for an order already paid; refund it', { order: order.id, payment: p.id, paid_by: done.order.paymentId, via });
    }
    return done.applied ? 'credited' : 'already_credited';
  }

  /** The one place an order is credited. */
  async #credit(order: TopupOrder, p: { id: string; method: string | null }, via: PaidVia): Promise<CreditedOrder> {
    const done = await this.#d.billing.creditOrder(order.id, { id: p.id, method: p.method, via }, this.#d.clock.now(), bonusStands);
    if (done.applied) this.#d.credited(order.id);
    return done;
  }
}
