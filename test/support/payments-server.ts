import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PAY_KEY_ID = 'rzp_test_gwkey';
export const PAY_KEY_SECRET = 'pay-key-secret-for-tests';
export const PAY_WEBHOOK_SECRET = 'pay-webhook-secret-for-tests';

export interface MockOrder {
  id: string;
  amount: number;
  currency: string;
  receipt: string;
  notes: Record<string, string>;
}

/** What the dashboard posted to the hosted checkout (its form fields). */
export type CheckoutForm = Record<string, string>;

/**
 * A payment provider on loopback: the Razorpay-style orders API the gateway calls (Basic auth,
 * amounts in paise), the checkout's signed proof of payment, and signed webhooks. Also serves
 * the India Post PIN lookup shape at /pincode/:pin, and a hosted checkout at
 * POST /v1/checkout/embedded: plain HTML forms (no script) with Pay, Fail and Cancel, which post
 * the signed result (or the error fields) to the merchant's callback_url as Razorpay does.
 */
export interface MockPayments {
  url: string;
  pincodeUrl: string;
  orders: Map<string, MockOrder>;
  /** Authorization headers of the order calls, in order. */
  auths: string[];
  /** The next order call is answered with this status and an error body, or with 0 its connection is dropped unanswered. */
  refuseNext: number | null;
  /** PIN codes whose lookup answers 500, as a lookup service having a bad day. */
  failingPins: Set<string>;
  /** The customer pays (or fails to): the payment joins the order's list; returns what the checkout hands back. */
  pay(orderId: string, opts?: { status?: 'captured' | 'failed'; amount?: number }): { order_id: string; payment_id: string; signature: string };
  /** Payments per order, as GET /orders/:id/payments lists them. */
  payments: Map<string, Record<string, unknown>[]>;
  /** Calls to GET /orders/:id/payments, by order id. */
  paymentQueries: string[];
  /** Sends a signed webhook to the gateway, as the provider would. */
  webhook(gatewayUrl: string, event: string, entity: Record<string, unknown>, opts?: { secret?: string; signature?: string }): Promise<Response>;
  pincodes: Map<string, { District: string; State: string }>;
  /** The URL the dashboard's checkout form posts to. */
  checkoutUrl: string;
  /** Every form posted to the hosted checkout, in order. */
  checkouts: CheckoutForm[];
  close(): Promise<void>;
}

export const sign = (secret: string, data: string | Buffer): string => createHmac('sha256', secret).update(data).digest('hex');

export async function startMockPayments(): Promise<MockPayments> {
  const orders = new Map<string, MockOrder>();
  const auths: string[] = [];
  const pincodes = new Map<string, { District: string; State: string }>();
  const failingPins = new Set<string>();
  const payments = new Map<string, Record<string, unknown>[]>();
  const paymentQueries: string[] = [];
  const expected = `Basic ${Buffer.from(`${PAY_KEY_ID}:${PAY_KEY_SECRET}`).toString('base64')}`;
  const mock = { refuseNext: null as number | null };
  const checkouts: CheckoutForm[] = [];
  const pay = (orderId: string, opts: { status?: 'captured' | 'failed'; amount?: number; error?: string } = {}) => {
    const paymentId = `pay_${randomBytes(7).toString('hex')}`;
    const status = opts.status ?? 'captured';
    const list = payments.get(orderId) ?? [];
    list.push({
      id: paymentId, entity: 'payment', order_id: orderId, amount: opts.amount ?? orders.get(orderId)?.amount, currency: 'INR', status, method: 'upi',
      ...(status === 'failed' ? { error_description: opts.error ?? DECLINED } : {}),
    });
    payments.set(orderId, list);
    return { order_id: orderId, payment_id: paymentId, signature: sign(PAY_KEY_SECRET, `${orderId}|${paymentId}`) };
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const send = (status: number, doc: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(doc));
      };
      const pin = /^\/pincode\/(\d+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && pin) {
        if (failingPins.has(pin[1])) return send(500, { error: 'internal' });
        const o = pincodes.get(pin[1]);
        send(200, o ? [{ Message: 'Number of pincode(s) found:1', Status: 'Success', PostOffice: [{ Name: 'Head Office', ...o }] }]
          : [{ Message: 'No records found', Status: 'Error', PostOffice: null }]);
        return;
      }
      if (req.method === 'POST' && req.url?.startsWith('/v1/checkout/')) {
        const form = Object.fromEntries(new URLSearchParams(body));
        const page = checkout(req.url, form, orders, pay);
        if (req.url === '/v1/checkout/embedded') checkouts.push(form);
        res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(page.html);
        return;
      }
      const listed = /^\/v1\/orders\/([^/]+)\/payments$/.exec(req.url ?? '');
      if (req.method === 'GET' && listed) {
        if (req.headers.authorization !== expected) return send(401, { error: { description: 'Authentication failed' } });
        const id = decodeURIComponent(listed[1]);
        paymentQueries.push(id);
        if (!orders.has(id)) return send(400, { error: { code: 'BAD_REQUEST_ERROR', description: 'The id provided does not exist' } });
        const items = payments.get(id) ?? [];
        return send(200, { entity: 'collection', count: items.length, items });
      }
      if (req.method !== 'POST' || req.url !== '/v1/orders') return send(404, { error: { description: 'no such route' } });
      auths.push(String(req.headers.authorization));
      if (req.headers.authorization !== expected) return send(401, { error: { code: 'BAD_REQUEST_ERROR', description: 'Authentication failed' } });
      if (mock.refuseNext !== null) {
        const status = mock.refuseNext;
        mock.refuseNext = null;
        if (status === 0) return req.socket.destroy();
        return send(status, { error: { code: 'SERVER_ERROR', description: 'The provider is having a bad day' } });
      }
      const b = JSON.parse(body);
      const order: MockOrder = { id: `order_${randomBytes(7).toString('hex')}`, amount: b.amount, currency: b.currency, receipt: b.receipt, notes: b.notes };
      orders.set(order.id, order);
      send(200, { ...order, entity: 'order', status: 'created', amount_paid: 0, amount_due: order.amount, attempts: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(mock, {
    url: `${base}/v1`,
    pincodeUrl: `${base}/pincode/`,
    orders,
    auths,
    pincodes,
    failingPins,
    payments,
    paymentQueries,
    checkoutUrl: `${base}/v1/checkout/embedded`,
    checkouts,
    pay,
    webhook(gatewayUrl: string, event: string, entity: Record<string, unknown>, opts: { secret?: string; signature?: string } = {}) {
      const raw = JSON.stringify({ entity: 'event', event, payload: { payment: { entity: { entity: 'payment', currency: 'INR', ...entity } } }, created_at: Math.floor(Date.now() / 1000) });
      return fetch(`${gatewayUrl}/webhooks/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-payments-signature': opts.signature ?? sign(opts.secret ?? PAY_WEBHOOK_SECRET, raw) },
        body: raw,
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

const DECLINED = 'Payment was cancelled by the customer';
/** The failure the checkout's Fail button reports, as Razorpay words a declined card. */
export const CHECKOUT_FAILURE = 'Your payment was declined by the bank. Try another card or UPI.';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]);
const hidden = (fields: Record<string, string>): string =>
  Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('');
const htmlPage = (title: string, body: string): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;
const rupees = (paise: number): string => `₹${(paise / 100).toFixed(2)}`;

type Pay = (orderId: string, opts?: { status?: 'captured' | 'failed'; error?: string }) => { order_id: string; payment_id: string; signature: string };

/**
 * The hosted checkout's pages. /embedded checks what the merchant posted (its key, an order of
 * its own, the order's amount, a callback) as Razorpay does, then offers Pay, Fail and Cancel;
 * /pay and /fail record the payment on the order and hand the browser back to the merchant.
 */
function checkout(path: string, f: Record<string, string>, orders: Map<string, MockOrder>, pay: Pay): { status: number; html: string } {
  const order = orders.get(f.order_id ?? '');
  const refuse = (why: string) => ({ status: 400, html: htmlPage('Checkout refused', `<p>${esc(why)}</p>`) });
  if (f.key_id !== PAY_KEY_ID) return refuse(`Unknown key_id ${f.key_id ?? '(none)'}`);
  if (!order) return refuse(`No order ${f.order_id ?? '(none)'}`);
  if (!/^https?:\/\//.test(f.callback_url ?? '')) return refuse('callback_url is missing');
  const back = { key_id: f.key_id, order_id: order.id, callback_url: f.callback_url, cancel_url: f.cancel_url ?? '' };
  if (path === '/v1/checkout/embedded') {
    if (String(order.amount) !== f.amount || f.currency !== 'INR') return refuse(`The amount ${f.amount} ${f.currency} does not match the order`);
    return {
      status: 200,
      html: htmlPage(`Pay ${rupees(order.amount)}`, `<p>Pay ${rupees(order.amount)} to ${esc(f.name ?? '')} for order <code>${esc(order.id)}</code>.</p>
<p>${esc(f.description ?? '')}</p><p>Paying as ${esc(f['prefill[email]'] ?? '')}</p>
<form method="post" action="/v1/checkout/pay">${hidden(back)}<button type="submit">Pay</button></form>
<form method="post" action="/v1/checkout/fail">${hidden(back)}<button type="submit">Fail</button></form>
${f.cancel_url ? `<p><a href="${esc(f.cancel_url)}">Cancel and go back</a></p>` : ''}`),
    };
  }
  if (path === '/v1/checkout/pay') {
    const p = pay(order.id);
    return {
      status: 200,
      html: htmlPage('Payment successful', `<p>Payment <code id="payment-id">${esc(p.payment_id)}</code> of ${rupees(order.amount)} captured.</p>
<form method="post" action="${esc(f.callback_url)}">${hidden({ razorpay_payment_id: p.payment_id, razorpay_order_id: p.order_id, razorpay_signature: p.signature })}
<button type="submit">Return to merchant</button></form>`),
    };
  }
  if (path === '/v1/checkout/fail') {
    const p = pay(order.id, { status: 'failed', error: CHECKOUT_FAILURE });
    return {
      status: 200,
      html: htmlPage('Payment failed', `<p>${esc(CHECKOUT_FAILURE)}</p>
<form method="post" action="${esc(f.callback_url)}">${hidden({
        'error[code]': 'BAD_REQUEST_ERROR', 'error[description]': CHECKOUT_FAILURE, 'error[source]': 'bank', 'error[step]': 'payment_authorization',
        'error[reason]': 'payment_failed', 'error[metadata][order_id]': order.id, 'error[metadata][payment_id]': p.payment_id,
      })}<button type="submit">Return to merchant</button></form>`),
    };
  }
  return { status: 404, html: htmlPage('Not found', '') };
}
