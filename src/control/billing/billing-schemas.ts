import { Type } from '@sinclair/typebox';
import { LISTED, ORDERS_LISTED } from './billing-rules.js';

// The wire shapes of /me/billing: what /openapi.json documents and the router validates.

const Inr = Type.Number({ description: '₹' });

/** The billing address as read and written by /me/billing: its state is the GST place of supply. */
export const AddressView = Type.Object({
  name: Type.String(), line1: Type.String(), line2: Type.Union([Type.String(), Type.Null()]), city: Type.String(),
  state: Type.String(), state_code: Type.String({ description: 'GST state code: the place of supply' }),
  pincode: Type.String(), gstin: Type.Union([Type.String(), Type.Null()]), updated_at: Type.String(),
});
const field = (description: string) => Type.Optional(Type.Unknown({ description }));
// Fields are checked by the handler, not the router, so every failure is bad_address naming its field.
export const AddressBody = Type.Object({
  name: field('string, 1-100 characters: the person or business billed'),
  line1: field('string, 1-200 characters'),
  line2: field('string up to 200 characters, or null'),
  city: field('string, 1-100 characters'),
  state: field('state or union territory: its name or GST state code'),
  pincode: field('six-digit PIN code'),
  gstin: field('GSTIN registered in that state, or null'),
}, { additionalProperties: false });

export const BillingView = Type.Object({
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
});

export const PinPlaceView = Type.Object({ pincode: Type.String(), city: Type.String(), district: Type.String(), state: Type.String(), state_code: Type.String() });

export const OrderBody = Type.Object({
  amount_inr: Type.Integer({ description: 'credit to buy, whole ₹ (100-1000 in beta); GST is added on top' }),
  promo_code: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });
const Tax = Type.Object({ cgst_inr: Inr, sgst_inr: Inr, igst_inr: Inr, gst_percent: Type.Literal(18) });
export const OrderView = Type.Object({
  order_id: Type.String(), key_id: Type.String(), currency: Type.Literal('INR'),
  amount_paise: Type.Integer({ description: 'what the checkout charges: credit plus GST' }),
  credit_inr: Inr, tax: Tax, total_inr: Inr,
  place_of_supply: Type.Object({ state: Type.String(), state_code: Type.String() }),
  promo_code: Type.Union([Type.String(), Type.Null()]), bonus_inr: Inr,
  checkout_url: Type.String({ description: 'the provider\'s hosted checkout: post key_id, order_id, amount, currency, name, description, callback_url (…/billing/return) to it' }),
  merchant_name: Type.String({ description: 'the seller, as the checkout names it' }),
});

export const VerifyBody = Type.Object({
  order_id: Type.String({ maxLength: 128 }),
  payment_id: Type.String({ maxLength: 128 }),
  signature: Type.String({ maxLength: 256, description: 'the checkout\'s HMAC-SHA256 of order_id|payment_id' }),
}, { additionalProperties: false });
export const VerifyView = Type.Object({
  credited: Type.Boolean({ description: 'false when this order had already been credited (by an earlier call or the webhook)' }),
  order_id: Type.String(), payment_id: Type.String(), credit_inr: Inr, bonus_inr: Inr, balance_inr: Inr, receipt_url: Type.String(),
});

export const PromoBody = Type.Object({
  code: Type.String({ maxLength: 64 }),
  amount_inr: Type.Optional(Type.Integer({ description: 'a top-up to price the bonus for' })),
}, { additionalProperties: false });
export const PromoView = Type.Object({
  code: Type.String(), valid: Type.Literal(true), kind: Type.Union([Type.Literal('fixed'), Type.Literal('percent')]),
  percent: Type.Union([Type.Integer(), Type.Null()]), bonus_inr: Type.Union([Inr, Type.Null()], { description: 'for amount_inr, or the fixed bonus' }),
  expires_at: Type.Union([Type.String(), Type.Null()]),
});

export const SettingsBody = Type.Object({
  low_balance_inr: Type.Union([Type.Number({ minimum: 0, maximum: 10_000_000 }), Type.Null()], { description: 'mail the owners when the balance falls below this; null clears it' }),
}, { additionalProperties: false });
export const SettingsView = Type.Object({ low_balance_inr: Type.Union([Inr, Type.Null()]) });
