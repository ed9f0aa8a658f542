import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { SavedAddress } from '../../domain/stores/billing-store.js';
import { GST_STATES } from '../../lib/gst-codes.js';
import { iso } from '../../lib/iso-time.js';
import { inrToMicros, microsToInr } from '../../lib/money.js';
import type { BillingService } from './billing-service.js';
import type { PaymentService } from './payment-service.js';
import {
  AddressBody, AddressView, BillingView, OrderBody, OrderView, PinPlaceView, PromoBody, PromoView, SettingsBody, SettingsView, VerifyBody, VerifyView,
} from './billing-schemas.js';

const receiptUrl = (paymentId: string): string => `/me/billing/receipts/${encodeURIComponent(paymentId)}`;

const addressView = (a: SavedAddress) => ({
  name: a.name, line1: a.line1, line2: a.line2, city: a.city, state: GST_STATES.get(a.stateCode) ?? a.stateCode, state_code: a.stateCode,
  pincode: a.pincode, gstin: a.gstin, updated_at: iso(a.updatedAt),
});

/**
 * /me/billing (spec 4.6, owner): HTTP to the billing service (balance and history, the address
 * that decides GST, top-up orders, promo codes, the low-balance threshold, receipts) and to the
 * payment service for the checkout's proof of payment.
 */
export function billingRoutes(billing: BillingService, payments: PaymentService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/me/billing', auth: 'session', role: 'owner', response: BillingView,
      summary: 'Balance, low-balance threshold, money events, payments, 30-day usage and the billing address',
      handle: async (ctx) => {
        const v = await billing.overview(ctx.session.orgId);
        return {
          body: {
            balance_inr: microsToInr(v.balanceMicros),
            low_balance_inr: microsToInr(v.lowBalanceMicros),
            topups: {
              enabled: v.topups.enabled, min_inr: v.topups.minInr, max_inr: v.topups.maxInr, gst_percent: 18, key_id: v.topups.keyId,
              checkout_url: v.topups.checkoutUrl,
            },
            address: v.address ? addressView(v.address) : null,
            money_events: v.moneyEvents.map((e) => ({ id: e.id, at: iso(e.at), kind: e.kind, amount_inr: microsToInr(e.amountMicros), note: e.note })),
            payments: v.payments.map((p) => ({
              id: p.id, order_id: p.orderId, status: p.status, amount_inr: microsToInr(p.amountMicros), method: p.method, error: p.error,
              at: iso(p.at), receipt_url: p.status === 'captured' ? receiptUrl(p.id) : null,
            })),
            orders: v.orders.map((o) => ({
              id: o.id, status: o.status, credit_inr: microsToInr(o.creditMicros), total_inr: microsToInr(o.totalMicros), promo_code: o.promoCode,
              bonus_inr: microsToInr(o.promoBonusMicros), created_at: iso(o.createdAt), paid_at: iso(o.paidAt), payment_id: o.paymentId,
            })),
            usage_30d: {
              requests: v.usage30d.requests,
              spent_inr: microsToInr(v.usage30d.spentMicros),
              days: v.usage30d.days.map((d) => ({ day: d.day, requests: d.requests, spent_inr: microsToInr(d.costMicros) })),
            },
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/billing/address', auth: 'session', role: 'owner', body: AddressBody, response: AddressView,
      summary: 'Save the billing address (needed before the first top-up: its state is the GST place of supply); 400 bad_address names the field',
      handle: async (ctx) => ({ body: addressView(await billing.saveAddress(ctx.session.orgId, ctx.body)) }),
    }),
    route({
      kind: 'json', method: 'get', path: '/me/billing/pincode/:pin', auth: 'session', role: 'owner', response: PinPlaceView,
      summary: 'City and state for a postal PIN code, to fill in the billing address (404 when no post office has it)',
      handle: async (ctx) => ({ body: await billing.lookupPin(ctx.session.orgId, ctx.params.pin) }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/billing/orders', auth: 'session', role: 'owner', body: OrderBody, response: OrderView,
      summary: 'Create a top-up order with the payment provider: amount_inr whole ₹ (100-1000 in beta) plus 18% GST; an optional promo adds a bonus when paid',
      handle: async (ctx) => {
        const made = await billing.createOrder(ctx.session.orgId, ctx.session.userId, { amountInr: ctx.body.amount_inr, promoCode: ctx.body.promo_code });
        const { order, tax } = made;
        return {
          body: {
            order_id: order.id, key_id: made.keyId, currency: 'INR', amount_paise: made.amountPaise,
            credit_inr: ctx.body.amount_inr,
            tax: { cgst_inr: microsToInr(tax.cgstMicros), sgst_inr: microsToInr(tax.sgstMicros), igst_inr: microsToInr(tax.igstMicros), gst_percent: 18 },
            total_inr: microsToInr(tax.totalMicros),
            place_of_supply: { state: made.placeOfSupplyState, state_code: order.placeOfSupply },
            promo_code: order.promoCode, bonus_inr: microsToInr(order.promoBonusMicros),
            checkout_url: made.checkoutUrl, merchant_name: made.merchantName,
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/billing/verify', auth: 'session', role: 'owner', body: VerifyBody, response: VerifyView,
      summary: 'Verify the checkout\'s signature and credit the balance; idempotent, and shared with the payments webhook',
      handle: async (ctx) => {
        const v = ctx.body;
        const done = await payments.verifyCheckout(ctx.session.orgId, { orderId: v.order_id, paymentId: v.payment_id, signature: v.signature });
        const paidBy = done.order.paymentId!;
        return {
          body: {
            credited: done.applied, order_id: done.order.id, payment_id: paidBy, credit_inr: microsToInr(done.order.creditMicros),
            bonus_inr: microsToInr(done.order.promoBonusMicros), balance_inr: microsToInr(done.balanceMicros),
            receipt_url: receiptUrl(paidBy),
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/billing/promo/check', auth: 'session', role: 'owner', body: PromoBody, response: PromoView,
      summary: 'Check a promo code for this org: 400 promo_invalid (unknown, expired, used up) or promo_redeemed',
      handle: async (ctx) => {
        const { promo, bonusMicros } = await billing.checkPromo(ctx.session.orgId, ctx.body.code, ctx.body.amount_inr);
        return {
          body: {
            code: promo.code, valid: true, kind: promo.kind, percent: promo.kind === 'percent' ? promo.value : null,
            bonus_inr: microsToInr(bonusMicros), expires_at: iso(promo.expiresAt),
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/billing/settings', auth: 'session', role: 'owner', body: SettingsBody, response: SettingsView,
      summary: 'Set the low-balance email threshold in ₹ (the owners are mailed once per crossing), or clear it with null',
      handle: async (ctx) => {
        const low = ctx.body.low_balance_inr;
        const micros = await billing.setLowBalance(ctx.session.orgId, low === null ? null : inrToMicros(low));
        return { body: { low_balance_inr: microsToInr(micros) } };
      },
    }),
    route({
      kind: 'raw', method: 'get', path: '/me/billing/receipts/:paymentId', auth: 'session', role: 'owner',
      summary: 'A printable HTML receipt for a payment that paid a top-up (404 for any other)',
      handle: async (ctx, reply) => {
        const html = await billing.receipt(ctx.session.orgId, ctx.params.paymentId);
        reply.send(200, 'text/html; charset=utf-8', html,
          // The receipt shows text users typed: escaped, and a page that may run nothing besides.
          { 'cache-control': 'private, no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'", 'x-content-type-options': 'nosniff' });
      },
    }),
  ];
}
