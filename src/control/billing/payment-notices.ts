import type { Logger } from '../../lib/logger.js';
import type { Mailer } from '../../lib/mailer.js';
import type { Db } from '../../store/database.js';
import { findOrder, ownerEmails } from '../../store/billing.js';
import { rupees } from '../../lib/money.js';

/**
 * What follows a credited top-up, whichever path credited it (checkout, webhook, reconciler):
 * the data plane's balances move at once, and, with a mail relay, the org's owners get a
 * payment confirmation with the link to the receipt. A mail that fails is logged; the credit
 * stands and the receipt stays on the dashboard.
 */
export class PaymentNotices {
  readonly #d: { db: Db; mailer: Mailer | null; log: Logger; baseUrl: () => string; moneyChanged: () => void };

  constructor(d: { db: Db; mailer: Mailer | null; log: Logger; baseUrl: () => string; moneyChanged: () => void }) {
    this.#d = d;
  }

  credited(orderId: string): void {
    const { db, mailer, log } = this.#d;
    this.#d.moneyChanged();
    if (mailer === null) return;
    const o = findOrder(db, orderId);
    if (o === undefined || o.payment_id === null) return;
    const bonus = o.promo_bonus_micros > 0 ? ` and a ${rupees(o.promo_bonus_micros)} bonus (${o.promo_code})` : '';
    const subject = `[gw] Payment received: ${rupees(o.total_micros)}, ${rupees(o.credit_micros)} of credit`;
    const text = `We received ${rupees(o.total_micros)} (${rupees(o.credit_micros)} of credit plus GST) for order ${o.id}.\n`
      + `Your balance has been credited with ${rupees(o.credit_micros)}${bonus}.\n\n`
      + `Receipt: ${this.#d.baseUrl()}/me/billing/receipts/${encodeURIComponent(o.payment_id)} (signed in as an owner)\n`;
    for (const to of ownerEmails(db, o.org_id)) {
      mailer.send(to, subject, text)
        .catch((e: unknown) => log.warn('payment confirmation not mailed', { order: o.id, to, err: (e as Error).message }));
    }
  }
}
