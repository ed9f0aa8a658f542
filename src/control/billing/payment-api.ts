import { createHmac, timingSafeEqual } from 'node:crypto';
import { fetch } from 'undici';
import type { Config } from '../../config/schema.js';
import { errors } from '../../errors/catalog.js';
import type { ProxyDispatchers } from '../proxy-dispatchers.js';
import { readBounded } from '../bounded-body.js';

/** Largest answer read from the payment provider; its orders and payment lists are a few KiB. */
const MAX_BYTES = 1024 * 1024;

/** A payment as the provider reports it, in its webhook and in its order's payment list. */
export interface ProviderPayment {
  id: string;
  amountPaise: number;
  status: 'captured' | 'failed';
  method: string | null;
  error: string | null;
}

const hmacHex = (secret: string, data: string | Buffer): string => createHmac('sha256', secret).update(data).digest('hex');

function sameHex(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The payment provider: a Razorpay-style orders API. Orders are created server-side with the
 * key id and secret (HTTP Basic); the browser checkout then returns `order_id|payment_id` signed
 * with the key secret, and webhooks are signed over their raw body with the webhook secret.
 */
export class PaymentApi {
  readonly #s: Config['billing']['payments'] & { keyId: string; keySecret: string };
  readonly #dispatchers: ProxyDispatchers;
  readonly #auth: string;

  constructor(s: Config['billing']['payments'] & { keyId: string; keySecret: string }, dispatchers: ProxyDispatchers) {
    this.#s = s;
    this.#dispatchers = dispatchers;
    this.#auth = `Basic ${Buffer.from(`${s.keyId}:${s.keySecret}`).toString('base64')}`;
  }

  get keyId(): string {
    return this.#s.keyId;
  }

  get takesWebhooks(): boolean {
    return this.#s.webhookSecret !== undefined;
  }

  /** Creates the order the checkout pays; returns the provider's order id. */
  async createOrder(amountPaise: number, receipt: string, notes: Record<string, string>): Promise<string> {
    const url = `${this.#s.apiBaseUrl.replace(/\/+$/, '')}/orders`;
    let res;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { authorization: this.#auth, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ amount: amountPaise, currency: 'INR', receipt, notes }),
        signal: AbortSignal.timeout(this.#s.timeoutMs), dispatcher: this.#dispatchers.for(url),
      });
    } catch (e) {
      throw errors.serviceUnavailable(`The payment provider did not answer: ${(e as Error).message}; no order was made`);
    }
    const text = await readBounded(res, MAX_BYTES).then((b) => b.toString('utf8'), () => '');
    let doc: { id?: unknown; amount?: unknown; error?: { description?: unknown } } = {};
    try {
      doc = JSON.parse(text);
    } catch {
      // Reported below with the status.
    }
    if (res.status < 200 || res.status > 299 || typeof doc.id !== 'string' || !/^[\w-]{1,64}$/.test(doc.id)) {
      const why = typeof doc.error?.description === 'string' ? `: ${doc.error.description.slice(0, 200)}` : '';
      throw errors.serviceUnavailable(`The payment provider refused the order (${res.status})${why}; no order was made`);
    }
    if (doc.amount !== undefined && doc.amount !== amountPaise) {
      throw errors.serviceUnavailable(`The payment provider made an order for ${String(doc.amount)} paise instead of ${amountPaise}; not used`);
    }
    return doc.id;
  }

  /** The payments made against an order, as the provider has them: captured and failed ones; others are in progress. */
  async orderPayments(orderId: string): Promise<ProviderPayment[]> {
    const url = `${this.#s.apiBaseUrl.replace(/\/+$/, '')}/orders/${encodeURIComponent(orderId)}/payments`;
    const res = await fetch(url, {
      headers: { authorization: this.#auth, accept: 'application/json' },
      signal: AbortSignal.timeout(this.#s.timeoutMs), dispatcher: this.#dispatchers.for(url),
    });
    const text = (await readBounded(res, MAX_BYTES)).toString('utf8');
    if (res.status !== 200) throw new Error(`the payment provider answered ${res.status} for order ${orderId}'s payments`);
    const doc = JSON.parse(text) as { items?: unknown };
    if (!Array.isArray(doc.items)) throw new Error(`the payment provider's answer for order ${orderId} has no items`);
    const out: ProviderPayment[] = [];
    for (const it of doc.items as Record<string, unknown>[]) {
      const status = it?.status;
      if ((status !== 'captured' && status !== 'failed') || typeof it.id !== 'string' || !Number.isInteger(it.amount)) continue;
      out.push({
        id: it.id, amountPaise: it.amount as number, status,
        method: typeof it.method === 'string' ? it.method.slice(0, 32) : null,
        error: typeof it.error_description === 'string' ? it.error_description.slice(0, 500) : null,
      });
    }
    return out;
  }

  /** The checkout's proof of payment: HMAC-SHA256(order_id|payment_id) under the key secret. */
  checkoutSigned(orderId: string, paymentId: string, signature: string): boolean {
    return sameHex(hmacHex(this.#s.keySecret, `${orderId}|${paymentId}`), signature);
  }

  /** x-payments-signature: HMAC-SHA256 of the raw webhook body under the webhook secret. */
  webhookSigned(raw: Buffer, signature: string): boolean {
    return this.#s.webhookSecret !== undefined && sameHex(hmacHex(this.#s.webhookSecret, raw), signature);
  }
}
