import { Type } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import { errors } from '../../errors/catalog.js';
import type { PaymentService } from './payment-service.js';

interface PaymentEntity {
  id?: unknown;
  order_id?: unknown;
  amount?: unknown;
  method?: unknown;
  error_description?: unknown;
}

const str = (v: unknown, max = 128): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);

const reply = (status: string, detail?: string) => JSON.stringify(detail === undefined ? { status } : { status, detail });

/**
 * POST /webhooks/payments (spec 4.13): the payment provider's events, authenticated by an
 * HMAC-SHA256 of the raw body in x-payments-signature. payment.captured credits the order
 * exactly as POST /me/billing/verify does, so whichever arrives second changes nothing;
 * payment.failed is recorded for the dashboard. Events about orders this gateway did not make
 * are acknowledged and ignored, so the provider stops retrying them.
 *
 * The public per-IP limit applies only to deliveries that are not signed with the webhook secret:
 * the provider sends from a few addresses, and a real payment refused with 429 would stay
 * uncredited until the reconciler found it. The signature check is one HMAC over a body the
 * router has already bounded, so checking before limiting costs a stranger nothing it could not
 * already spend.
 */
export function paymentWebhookRoutes(payments: PaymentService,
  /** The public per-IP limit (throws 429 rate_limit_exceeded). */
  limitUnsigned: (ip: string) => void): RouteSpec[] {
  return [route({
    kind: 'raw', method: 'post', path: '/webhooks/payments', auth: 'public', limitedByHandler: true, headers: ['x-payments-signature', 'x-razorpay-signature'],
    body: Type.Object({ event: Type.String(), payload: Type.Object({ payment: Type.Object({ entity: Type.Object({}) }) }) }),
    response: Type.Object({ status: Type.String(), detail: Type.Optional(Type.String()) }),
    summary: 'Payment provider events (payment.captured, payment.failed), signed in x-payments-signature; crediting is idempotent with /me/billing/verify',
    handle: async (ctx, out) => {
      if (!payments.takesWebhooks) {
        limitUnsigned(ctx.ip);
        out.sendError(errors.billingDisabled('Payment webhooks are not configured on this gateway (billing.payments.webhookSecret)'));
        return;
      }
      const raw = (ctx.body) ?? Buffer.alloc(0);
      // Razorpay itself names the header after itself; the same HMAC either way.
      const signature = ctx.headers['x-payments-signature'] || ctx.headers['x-razorpay-signature'] || '';
      if (!signature || !payments.webhookSigned(raw, signature)) {
        limitUnsigned(ctx.ip);
        out.sendError(errors.badRequest('x-payments-signature is missing or does not match the body'));
        return;
      }
      let event: { event?: unknown; payload?: { payment?: { entity?: PaymentEntity } } };
      try {
        event = JSON.parse(raw.toString('utf8'));
      } catch {
        out.sendError(errors.badRequest('The webhook body is not JSON'));
        return;
      }
      const name = typeof event?.event === 'string' ? event.event : '';
      const p = event?.payload?.payment?.entity;
      if (name !== 'payment.captured' && name !== 'payment.failed') {
        out.send(200, 'application/json', reply('ignored', `event '${name.slice(0, 64)}' is not handled`));
        return;
      }
      const paymentId = str(p?.id);
      const orderId = str(p?.order_id);
      if (!paymentId || !orderId || typeof p?.amount !== 'number' || !Number.isInteger(p.amount)) {
        out.sendError(errors.badRequest('payload.payment.entity needs id, order_id and an integer amount'));
        return;
      }
      const outcome = await payments.report(orderId, {
        id: paymentId, amountPaise: p.amount, status: name === 'payment.failed' ? 'failed' : 'captured',
        method: str(p.method, 32), error: str(p.error_description, 500),
      }, 'webhook');
      out.send(200, 'application/json', outcome === 'unknown_order' ? reply('ignored', 'not an order of this gateway')
        : outcome === 'amount_mismatch' ? reply('ignored', 'amount does not match the order') : reply(outcome));
    },
  })];
}
