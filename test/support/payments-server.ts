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

/**
 * A payment provider on loopback: the Razorpay-style orders API the gateway calls (Basic auth,
 * amounts in paise), the checkout's signed proof of payment, and signed webhooks. Also serves
 * the India Post PIN lookup shape at /pincode/:pin.
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
    pay(orderId: string, opts: { status?: 'captured' | 'failed'; amount?: number } = {}) {
      const paymentId = `pay_${randomBytes(7).toString('hex')}`;
      const status = opts.status ?? 'captured';
      const list = payments.get(orderId) ?? [];
      list.push({
        id: paymentId, entity: 'payment', order_id: orderId, amount: opts.amount ?? orders.get(orderId)?.amount, currency: 'INR', status, method: 'upi',
        ...(status === 'failed' ? { error_description: 'Payment was cancelled by the customer' } : {}),
      });
      payments.set(orderId, list);
      return { order_id: orderId, payment_id: paymentId, signature: sign(PAY_KEY_SECRET, `${orderId}|${paymentId}`) };
    },
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
