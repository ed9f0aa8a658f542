import type { Logger } from '../../lib/logger.js';
import type { Db } from '../../store/database.js';
import { creditOrder, recordFailedPayment, type OrderRow, type PaidVia } from '../../store/billing.js';
import { paiseOf } from './payment-api.js';

/** A payment as the provider reports it, in its webhook and in its order's payment list. */
export interface ProviderPayment {
  id: string;
  amountPaise: number;
  status: 'captured' | 'failed';
  method: string | null;
  error: string | null;
}

export type PaymentOutcome = 'credited' | 'already_credited' | 'recorded' | 'amount_mismatch';

/**
 * What a reported payment does to its order, whoever reports it (the webhook, the reconciler):
 * a capture for the order's exact total credits it, once; a capture for any other amount is never
 * credited (the operator settles it); a failure is recorded and leaves the order open.
 */
export function applyProviderPayment(db: Db, log: Logger, order: OrderRow, p: ProviderPayment, via: PaidVia, now: number): PaymentOutcome {
  if (p.status === 'failed') {
    recordFailedPayment(db, order, { id: p.id, amountMicros: p.amountPaise * 10_000, method: p.method, error: p.error }, now);
    return 'recorded';
  }
  if (p.amountPaise !== paiseOf(order.total_micros)) {
    log.error('payment amount differs from its order; not credited', { order: order.id, payment: p.id, paise: p.amountPaise, expected: paiseOf(order.total_micros), via });
    return 'amount_mismatch';
  }
  const done = creditOrder(db, order.id, { id: p.id, method: p.method, via }, now);
  if (!done.applied && done.order.payment_id !== p.id) {
    log.error('a second payment was captured for an order already paid; refund it', { order: order.id, payment: p.id, paid_by: done.order.payment_id, via });
  }
  return done.applied ? 'credited' : 'already_credited';
}
