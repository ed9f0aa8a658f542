import type { BillingStore } from '../../domain/stores/billing-store.js';
import type { OrgStore } from '../../domain/stores/org-store.js';
import type { Logger } from '../../lib/logger.js';
import type { Mailer } from '../../lib/mailer.js';
import { rupees } from '../../lib/money.js';

export interface PaymentNoticesDeps {
  billing: Pick<BillingStore, 'findOrder'>;
  orgs: Pick<OrgStore, 'ownerEmails'>;
  mailer: Mailer | null;
  log: Logger;
  baseUrl: () => string;
  moneyChanged: () => void;
}

/**
 * What follows a credited top-up, whichever path credited it (checkout, webhook, reconciler):
 * the data plane's balances move at once, and, with a mail relay, the org's owners get a
 * payment confirmation with the link to the receipt. A mail that fails is logged; the credit
 * stands and the receipt stays on the dashboard.
 */
export class PaymentNotices {
  readonly #d: PaymentNoticesDeps;

  constructor(d: PaymentNoticesDeps) {
    this.#d = d;
  }

  credited(orderId: string): void {
    // At once, before the answer that reports the credit is sent: a request right after it sees the new balance.
    this.#d.moneyChanged();
    if (this.#d.mailer === null) return;
    this.#mail(orderId).catch((e: unknown) => this.#d.log.warn('payment confirmation not mailed', { order: orderId, err: (e as Error).message }));
  }

  async #mail(orderId: string): Promise<void> {
    const { billing, orgs, mailer, log } = this.#d;
    const o = await billing.findOrder(orderId);
    if (mailer === null || o === undefined || o.paymentId === null) return;
    const bonus = o.promoBonusMicros > 0 ? ` and a ${rupees(o.promoBonusMicros)} bonus (${o.promoCode})` : '';
    const subject = `[gw] Payment received: ${rupees(o.totalMicros)}, ${rupees(o.creditMicros)} of credit`;
    const text = `We received ${rupees(o.totalMicros)} (${rupees(o.creditMicros)} of credit plus GST) for order ${o.id}.\n`
      + `Your balance has been credited with ${rupees(o.creditMicros)}${bonus}.\n\n`
      + `Receipt: ${this.#d.baseUrl()}/me/billing/receipts/${encodeURIComponent(o.paymentId)} (signed in as an owner)\n`;
    for (const to of await orgs.ownerEmails(o.orgId)) {
      mailer.send(to, subject, text)
        .catch((e: unknown) => log.warn('payment confirmation not mailed', { order: o.id, to, err: (e as Error).message }));
    }
  }
}
