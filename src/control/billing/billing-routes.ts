import { Type, type Static } from '@sinclair/typebox';
import { topupTax } from '../../billing/gst.js';
import { GST_STATES } from '../../lib/gst-codes.js';
import type { RouteSpec } from '../../domain/route-spec.js';
import { errors } from '../../errors/catalog.js';
import { newId } from '../../lib/ids.js';
import { inrToMicros, microsToInr } from '../../lib/money.js';
import {
  creditOrder, findBillingAddress, findOrder, findOrderByPayment, findPayment, findPromo, insertOrder, listMoneyEvents, listOrders, listPayments, ordersSince,
  lowBalanceOf, promoOpen, promoRedeemedBy, saveBillingAddress, setLowBalance, type OrderRow, type PromoRow,
} from '../../store/billing.js';
import { perMinuteLimiter } from '../../limits/ip-limiter.js';
import { findOrg } from '../../store/orgs.js';
import { istDayLabel, istDayNumber } from '../../lib/ist.js';
import type { UsageRollup } from '../../store/usage-reports.js';
import type { ControlDeps } from '../control-deps.js';
import { iso } from '../team-rules.js';
import { paiseOf, type PaymentApi } from './payment-api.js';
import { AddressBody, AddressView, addressView, parseAddress } from './billing-address.js';
import type { PincodeLookup } from './pincode-lookup.js';
import type { PaymentNotices } from './payment-notices.js';
import { renderReceipt } from './receipt.js';

const LISTED = 100;
const ORDERS_LISTED = 20;
const HOUR_MS = 3_600_000;
const PIN_LOOKUPS_PER_MINUTE = 30;
const Inr = Type.Number({ description: '₹' });

const OrderBody = Type.Object({
  amount_inr: Type.Integer({ description: 'credit to buy, whole ₹ (100-1000 in beta); GST is added on top' }),
  promo_code: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });
const VerifyBody = Type.Object({
  order_id: Type.String({ maxLength: 128 }),
  payment_id: Type.String({ maxLength: 128 }),
  signature: Type.String({ maxLength: 256, description: 'the checkout\'s HMAC-SHA256 of order_id|payment_id' }),
}, { additionalProperties: false });
const PromoBody = Type.Object({
  code: Type.String({ maxLength: 64 }),
  amount_inr: Type.Optional(Type.Integer({ description: 'a top-up to price the bonus for' })),
}, { additionalProperties: false });
const SettingsBody = Type.Object({
  low_balance_inr: Type.Union([Type.Number({ minimum: 0, maximum: 10_000_000 }), Type.Null()], { description: 'mail the owners when the balance falls below this; null clears it' }),
}, { additionalProperties: false });
const Tax = Type.Object({ cgst_inr: Inr, sgst_inr: Inr, igst_inr: Inr, gst_percent: Type.Literal(18) });

const bonusOf = (p: PromoRow, creditMicros: number): number =>
  p.kind === 'fixed' ? p.value : Math.round((creditMicros * p.value) / 100);

export interface BillingRouteDeps extends ControlDeps {
  /** null until billing.payments and billing.seller.state are configured. */
  payments: PaymentApi | null;
  pincodes: PincodeLookup;
  /** The per-org usage rollup the usage reports read too. */
  rollup: UsageRollup;
  notices: PaymentNotices;
}

/**
 * /me/billing (spec 4.6, owner): balance and history, the billing address that decides GST,
 * top-up orders paid through the payment provider's checkout and credited once on its signed
 * proof (or the webhook, whichever comes first), promo codes, the low-balance mail threshold,
 * and printable receipts.
 */
export function billingRoutes(d: BillingRouteDeps): RouteSpec[] {
  const { db, config, clock } = d;
  const b = config.billing;
  const payments = (): PaymentApi => {
    if (!d.payments) throw errors.billingDisabled();
    return d.payments;
  };
  const receiptUrl = (paymentId: string): string => `/me/billing/receipts/${encodeURIComponent(paymentId)}`;
  const openPromo = (orgId: string, raw: string): PromoRow => {
    const code = raw.trim();
    const promo = findPromo(db, code);
    if (!promoOpen(promo, clock.now())) throw errors.promoInvalid(code);
    if (promoRedeemedBy(db, promo.code, orgId)) throw errors.promoRedeemed(promo.code);
    return promo;
  };
  const amountOf = (amount: number): number => {
    if (amount < b.minTopupInr || amount > b.maxTopupInr) {
      throw errors.badRequest(`Invalid 'amount_inr': whole rupees from ${b.minTopupInr} to ${b.maxTopupInr} per top-up (beta)`);
    }
    return inrToMicros(amount);
  };
  const pinGate = perMinuteLimiter(PIN_LOOKUPS_PER_MINUTE, clock, `${PIN_LOOKUPS_PER_MINUTE} PIN lookups per minute per organisation`, 10_000);
  const orderOf = (orgId: string, id: string): OrderRow => {
    const o = findOrder(db, id);
    if (!o || o.org_id !== orgId) throw errors.notFound(`No order '${id}' in this organisation`);
    return o;
  };

  return [
    {
      kind: 'json', method: 'get', path: '/me/billing', auth: 'session', role: 'owner',
      response: Type.Object({
        balance_inr: Inr,
        low_balance_inr: Type.Union([Inr, Type.Null()]),
        topups: Type.Object({
          enabled: Type.Boolean(), min_inr: Type.Integer(), max_inr: Type.Integer(), gst_percent: Type.Literal(18),
          key_id: Type.Union([Type.String(), Type.Null()], { description: 'the payment provider\'s public key id, for its checkout' }),
          checkout_url: Type.Union([Type.String(), Type.Null()], { description: 'the provider\'s hosted checkout, which the top-up form posts to; null when top-ups are off' }),
        }),
        address: Type.Union([AddressView, Type.Null()]),
        money_events: Type.Array(Type.Object({
          id: Type.Integer(), at: Type.String(), kind: Type.String(), amount_inr: Inr, note: Type.Union([Type.String(), Type.Null()]),
        }), { description: `credits, payments and bonuses, newest first (last ${LISTED})` }),
        payments: Type.Array(Type.Object({
          id: Type.String(), order_id: Type.String(), status: Type.Union([Type.Literal('captured'), Type.Literal('failed')]),
          amount_inr: Type.Number({ description: '₹ charged, GST included' }), method: Type.Union([Type.String(), Type.Null()]),
          error: Type.Union([Type.String(), Type.Null()]), at: Type.String(),
          receipt_url: Type.Union([Type.String(), Type.Null()]),
        })),
        orders: Type.Array(Type.Object({
          id: Type.String(), status: Type.Union([Type.Literal('created'), Type.Literal('paid')]), credit_inr: Inr, total_inr: Inr,
          promo_code: Type.Union([Type.String(), Type.Null()]), bonus_inr: Inr, created_at: Type.String(),
          paid_at: Type.Union([Type.String(), Type.Null()]), payment_id: Type.Union([Type.String(), Type.Null()]),
        }), { description: `top-up orders, newest first (last ${ORDERS_LISTED}); created ones are still open for payment` }),
        usage_30d: Type.Object({
          requests: Type.Integer(), spent_inr: Inr,
          days: Type.Array(Type.Object({ day: Type.String({ description: 'IST date' }), requests: Type.Integer(), spent_inr: Inr })),
        }),
      }),
      summary: 'Balance, low-balance threshold, money events, payments, 30-day usage and the billing address',
      handle: async (ctx) => {
        const orgId = ctx.session!.orgId;
        const now = clock.now();
        const address = findBillingAddress(db, orgId);
        // From the shared usage rollup: a GROUP BY over the ledger would block the data plane's event loop.
        const today = istDayNumber(now);
        const byDay = new Map<number, { requests: number; cost: number }>();
        for (const c of (await d.rollup.read(orgId)).cells(today - 29, today)) {
          let t = byDay.get(c.day);
          if (t === undefined) byDay.set(c.day, (t = { requests: 0, cost: 0 }));
          t.requests += c.requests;
          t.cost += c.costMicros;
        }
        const spend = [...byDay].sort(([a], [b2]) => a - b2);
        const days = spend.map(([day, t]) => ({ day: istDayLabel(day), requests: t.requests, spent_inr: microsToInr(t.cost) }));
        const low = lowBalanceOf(db, orgId);
        return {
          body: {
            balance_inr: microsToInr(findOrg(db, orgId)!.balance_micros),
            low_balance_inr: microsToInr(low),
            topups: {
              enabled: d.payments !== null, min_inr: b.minTopupInr, max_inr: b.maxTopupInr, gst_percent: 18, key_id: d.payments?.keyId ?? null,
              checkout_url: d.payments ? b.payments.checkoutUrl : null,
            },
            address: address ? addressView(address) : null,
            money_events: listMoneyEvents(db, orgId, LISTED).map((e) => ({ id: e.id, at: iso(e.at)!, kind: e.kind, amount_inr: microsToInr(e.amount_micros), note: e.note })),
            payments: listPayments(db, orgId, LISTED).map((p) => ({
              id: p.id, order_id: p.order_id, status: p.status, amount_inr: microsToInr(p.amount_micros), method: p.method, error: p.error,
              at: iso(p.at)!, receipt_url: p.status === 'captured' ? receiptUrl(p.id) : null,
            })),
            orders: listOrders(db, orgId, ORDERS_LISTED).map((o) => ({
              id: o.id, status: o.status, credit_inr: microsToInr(o.credit_micros), total_inr: microsToInr(o.total_micros), promo_code: o.promo_code,
              bonus_inr: microsToInr(o.promo_bonus_micros), created_at: iso(o.created_at)!, paid_at: iso(o.paid_at), payment_id: o.payment_id,
            })),
            usage_30d: {
              requests: spend.reduce((n, [, t]) => n + t.requests, 0),
              spent_inr: microsToInr(spend.reduce((n, [, t]) => n + t.cost, 0)),
              days,
            },
          },
        };
      },
    },
    {
      kind: 'json', method: 'post', path: '/me/billing/address', auth: 'session', role: 'owner', body: AddressBody, response: AddressView,
      summary: 'Save the billing address (needed before the first top-up: its state is the GST place of supply); 400 bad_address names the field',
      handle: (ctx) => {
        const orgId = ctx.session!.orgId;
        saveBillingAddress(db, orgId, parseAddress(ctx.body as Record<string, unknown>), clock.now());
        return { body: addressView(findBillingAddress(db, orgId)!) };
      },
    },
    {
      kind: 'json', method: 'get', path: '/me/billing/pincode/:pin', auth: 'session', role: 'owner',
      response: Type.Object({ pincode: Type.String(), city: Type.String(), district: Type.String(), state: Type.String(), state_code: Type.String() }),
      summary: 'City and state for a postal PIN code, to fill in the billing address (404 when no post office has it)',
      handle: async (ctx) => {
        // Each unknown PIN is a call on a public service that may bar the gateway's address.
        pinGate(ctx.session!.orgId);
        return { body: await d.pincodes.lookup(ctx.params.pin) };
      },
    },
    {
      kind: 'json', method: 'post', path: '/me/billing/orders', auth: 'session', role: 'owner', body: OrderBody,
      response: Type.Object({
        order_id: Type.String(), key_id: Type.String(), currency: Type.Literal('INR'),
        amount_paise: Type.Integer({ description: 'what the checkout charges: credit plus GST' }),
        credit_inr: Inr, tax: Tax, total_inr: Inr,
        place_of_supply: Type.Object({ state: Type.String(), state_code: Type.String() }),
        promo_code: Type.Union([Type.String(), Type.Null()]), bonus_inr: Inr,
        checkout_url: Type.String({ description: 'the provider\'s hosted checkout: post key_id, order_id, amount, currency, name, description, callback_url (…/billing/return) to it' }),
        merchant_name: Type.String({ description: 'the seller, as the checkout names it' }),
      }),
      summary: 'Create a top-up order with the payment provider: amount_inr whole ₹ (100-1000 in beta) plus 18% GST; an optional promo adds a bonus when paid',
      handle: async (ctx) => {
        const api = payments();
        const { orgId, userId } = ctx.session!;
        const body = ctx.body as Static<typeof OrderBody>;
        const credit = amountOf(body.amount_inr);
        const address = findBillingAddress(db, orgId);
        if (!address) throw errors.addressRequired();
        const now = clock.now();
        const recent = ordersSince(db, orgId, now - HOUR_MS);
        if (recent.count >= b.maxOrdersPerHour) {
          throw errors.rateLimitExceeded(Math.max(1, Math.ceil((recent.first! + HOUR_MS - now) / 1000)), `at most ${b.maxOrdersPerHour} top-up orders an hour`);
        }
        const promo = body.promo_code === undefined ? null : openPromo(orgId, body.promo_code);
        const bonus = promo ? bonusOf(promo, credit) : 0;
        const tax = topupTax(credit, address.state_code, config.billing.seller.state!);
        const receipt = newId('topup');
        const orderId = await api.createOrder(paiseOf(tax.totalMicros), receipt, { org_id: orgId, credit_inr: String(body.amount_inr) });
        const { updated_at: _, ...billTo } = address;
        insertOrder(db, {
          id: orderId, org_id: orgId, created_by: userId, credit_micros: credit, cgst_micros: tax.cgstMicros, sgst_micros: tax.sgstMicros,
          igst_micros: tax.igstMicros, total_micros: tax.totalMicros, place_of_supply: address.state_code, bill_to: JSON.stringify(billTo),
          promo_code: promo?.code ?? null, promo_bonus_micros: bonus, created_at: now,
        });
        return {
          body: {
            order_id: orderId, key_id: api.keyId, currency: 'INR', amount_paise: paiseOf(tax.totalMicros),
            credit_inr: body.amount_inr,
            tax: { cgst_inr: microsToInr(tax.cgstMicros), sgst_inr: microsToInr(tax.sgstMicros), igst_inr: microsToInr(tax.igstMicros), gst_percent: 18 },
            total_inr: microsToInr(tax.totalMicros),
            place_of_supply: { state: GST_STATES.get(address.state_code)!, state_code: address.state_code },
            promo_code: promo?.code ?? null, bonus_inr: microsToInr(bonus),
            checkout_url: b.payments.checkoutUrl, merchant_name: b.seller.name,
          },
        };
      },
    },
    {
      kind: 'json', method: 'post', path: '/me/billing/verify', auth: 'session', role: 'owner', body: VerifyBody,
      response: Type.Object({
        credited: Type.Boolean({ description: 'false when this order had already been credited (by an earlier call or the webhook)' }),
        order_id: Type.String(), payment_id: Type.String(), credit_inr: Inr, bonus_inr: Inr, balance_inr: Inr, receipt_url: Type.String(),
      }),
      summary: 'Verify the checkout\'s signature and credit the balance; idempotent, and shared with the payments webhook',
      handle: (ctx) => {
        const api = payments();
        const orgId = ctx.session!.orgId;
        const v = ctx.body as Static<typeof VerifyBody>;
        const order = orderOf(orgId, v.order_id);
        if (!api.checkoutSigned(v.order_id, v.payment_id, v.signature)) {
          throw errors.badRequest('The checkout signature does not match this order and payment; nothing was credited');
        }
        const done = creditOrder(db, order.id, { id: v.payment_id, method: null, via: 'checkout' }, clock.now());
        if (done.applied) d.notices.credited(order.id);
        const paidBy = done.order.payment_id!;
        return {
          body: {
            credited: done.applied, order_id: order.id, payment_id: paidBy, credit_inr: microsToInr(done.order.credit_micros),
            bonus_inr: microsToInr(done.order.promo_bonus_micros), balance_inr: microsToInr(findOrg(db, orgId)!.balance_micros),
            receipt_url: receiptUrl(paidBy),
          },
        };
      },
    },
    {
      kind: 'json', method: 'post', path: '/me/billing/promo/check', auth: 'session', role: 'owner', body: PromoBody,
      response: Type.Object({
        code: Type.String(), valid: Type.Literal(true), kind: Type.Union([Type.Literal('fixed'), Type.Literal('percent')]),
        percent: Type.Union([Type.Integer(), Type.Null()]), bonus_inr: Type.Union([Inr, Type.Null()], { description: 'for amount_inr, or the fixed bonus' }),
        expires_at: Type.Union([Type.String(), Type.Null()]),
      }),
      summary: 'Check a promo code for this org: 400 promo_invalid (unknown, expired, used up) or promo_redeemed',
      handle: (ctx) => {
        payments();
        const body = ctx.body as Static<typeof PromoBody>;
        const promo = openPromo(ctx.session!.orgId, body.code);
        const credit = body.amount_inr === undefined ? null : amountOf(body.amount_inr);
        const bonus = promo.kind === 'fixed' ? promo.value : credit === null ? null : bonusOf(promo, credit);
        return {
          body: {
            code: promo.code, valid: true, kind: promo.kind, percent: promo.kind === 'percent' ? promo.value : null,
            bonus_inr: microsToInr(bonus), expires_at: iso(promo.expires_at),
          },
        };
      },
    },
    {
      kind: 'json', method: 'post', path: '/me/billing/settings', auth: 'session', role: 'owner', body: SettingsBody,
      response: Type.Object({ low_balance_inr: Type.Union([Inr, Type.Null()]) }),
      summary: 'Set the low-balance email threshold in ₹ (the owners are mailed once per crossing), or clear it with null',
      handle: (ctx) => {
        const { low_balance_inr: low } = ctx.body as Static<typeof SettingsBody>;
        if (low !== null && config.smtp.host === undefined) {
          throw errors.rule('unavailable', 'Low-balance mail needs a mail relay, and this gateway has none (smtp.host)');
        }
        const micros = low === null ? null : inrToMicros(low);
        setLowBalance(db, ctx.session!.orgId, micros);
        return { body: { low_balance_inr: microsToInr(micros) } };
      },
    },
    {
      kind: 'raw', method: 'get', path: '/me/billing/receipts/:paymentId', auth: 'session', role: 'owner',
      summary: 'A printable HTML receipt for a payment that paid a top-up (404 for any other)',
      handle: async (ctx, reply) => {
        const order = findOrderByPayment(db, ctx.params.paymentId);
        if (!order || order.org_id !== ctx.session!.orgId || order.status !== 'paid') {
          reply.sendError(errors.notFound(`No paid top-up with payment '${ctx.params.paymentId}' in this organisation`));
          return;
        }
        const method = findPayment(db, order.payment_id!)?.method ?? null;
        reply.send(200, 'text/html; charset=utf-8', renderReceipt(order, { id: order.payment_id!, method }, config.billing.seller),
          // The receipt shows text users typed: escaped, and a page that may run nothing besides.
          { 'cache-control': 'private, no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'", 'x-content-type-options': 'nosniff' });
      },
    },
  ];
}
