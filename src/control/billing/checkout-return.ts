import { Type } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';

/** Ids as the payment provider makes them (order_…, pay_…); the orders API's own check is the same. */
const ID_RE = /^[\w-]{1,64}$/;
/** The checkout's HMAC-SHA256, in hex. */
const SIGNATURE_RE = /^[0-9a-f]{64}$/i;
const MAX_BYTES = 16 * 1024;
const MAX_REASON = 200;
const GENERIC = 'The payment provider sent back an answer the gateway could not read';
const NO_REASON = 'The payment provider reported a failure without saying why';

/** The form the provider posts: a success's signed ids, or a failure's error fields. */
const ReturnForm = Type.Object({
  razorpay_payment_id: Type.Optional(Type.String({ description: 'on success' })),
  razorpay_order_id: Type.Optional(Type.String({ description: 'on success' })),
  razorpay_signature: Type.Optional(Type.String({ description: 'on success: HMAC-SHA256 of order_id|payment_id under the key secret' })),
  'error[code]': Type.Optional(Type.String({ description: 'on failure' })),
  'error[description]': Type.Optional(Type.String({ description: 'on failure, shown to the payer' })),
  'error[metadata][order_id]': Type.Optional(Type.String()),
  'error[metadata][payment_id]': Type.Optional(Type.String()),
});

/** A line of text from the provider, fit to show: control characters out, whitespace folded, cut short. */
const line = (s: string): string => {
  const t = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return t.length > MAX_REASON ? `${t.slice(0, MAX_REASON - 1)}…` : t;
};

/** Where the dashboard's billing page takes the outcome up; its query is the whole message. */
export function returnLocation(form: URLSearchParams): string {
  const order = form.get('razorpay_order_id') ?? '';
  const payment = form.get('razorpay_payment_id') ?? '';
  const signature = form.get('razorpay_signature') ?? '';
  const q = new URLSearchParams();
  if (ID_RE.test(order) && ID_RE.test(payment) && SIGNATURE_RE.test(signature)) {
    q.set('order_id', order);
    q.set('payment_id', payment);
    q.set('signature', signature);
    return `/billing?${q}`;
  }
  // The provider's code (BAD_REQUEST_ERROR) means nothing to a payer: only its description is shown.
  const reason = line(form.get('error[description]') ?? '');
  q.set('payment_error', reason || (form.has('error[code]') ? NO_REASON : GENERIC));
  const failedOrder = form.get('error[metadata][order_id]') ?? order;
  if (ID_RE.test(failedOrder)) q.set('order_id', failedOrder);
  return `/billing?${q}`;
}

/**
 * POST /billing/return: where the payment provider's hosted checkout sends the browser back,
 * with the payment's signed ids (or why it failed) as a form post. A post from the provider's
 * site carries no SameSite=Lax session cookie, so this route credits nothing itself: it reads
 * the form and sends the browser (303, now a GET that does carry the cookie) to the billing
 * page, which hands the ids to POST /me/billing/verify, the one place a checkout is credited.
 * Anything unreadable becomes a generic failure on that page, never an error page.
 */
export function checkoutReturnRoutes(): RouteSpec[] {
  return [route({
    kind: 'raw', method: 'post', path: '/billing/return', auth: 'public', redirects: 303,
    body: ReturnForm, bodyType: 'application/x-www-form-urlencoded', bodyLimitBytes: MAX_BYTES,
    summary: 'The payment checkout\'s callback_url: reads the provider\'s form post and redirects (303) to the dashboard\'s billing page, '
      + 'which verifies the payment with POST /me/billing/verify; credits nothing itself',
    handle: async (ctx, reply) => {
      const raw = ctx.body;
      const form = new URLSearchParams(raw ? raw.toString('utf8') : '');
      reply.send(303, 'text/plain; charset=utf-8', '', { location: returnLocation(form), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    },
  })];
}
