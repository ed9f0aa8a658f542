/** GET /me/billing, as src/control/billing/billing-routes.ts declares it. */
export interface Address {
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  state: string;
  state_code: string;
  pincode: string;
  gstin: string | null;
  updated_at: string;
}

export interface Topups {
  enabled: boolean;
  min_inr: number;
  max_inr: number;
  gst_percent: number;
  key_id: string | null;
  checkout_url: string | null;
}

export interface MoneyEvent { id: number; at: string; kind: string; amount_inr: number; note: string | null }
export interface Payment {
  id: string; order_id: string; status: 'captured' | 'failed'; amount_inr: number; method: string | null;
  error: string | null; at: string; receipt_url: string | null;
}
export interface Order {
  id: string; status: 'created' | 'paid'; credit_inr: number; total_inr: number; promo_code: string | null; bonus_inr: number;
  created_at: string; paid_at: string | null; payment_id: string | null;
}

export interface BillingView {
  balance_inr: number;
  low_balance_inr: number | null;
  topups: Topups;
  address: Address | null;
  money_events: MoneyEvent[];
  payments: Payment[];
  orders: Order[];
  usage_30d: { requests: number; spent_inr: number };
}

/** POST /me/billing/orders. */
export interface NewOrder {
  order_id: string;
  key_id: string;
  currency: 'INR';
  amount_paise: number;
  credit_inr: number;
  tax: { cgst_inr: number; sgst_inr: number; igst_inr: number; gst_percent: number };
  total_inr: number;
  place_of_supply: { state: string; state_code: string };
  promo_code: string | null;
  bonus_inr: number;
  checkout_url: string;
  merchant_name: string;
}

/** POST /me/billing/promo/check. */
export interface PromoCheck {
  code: string;
  valid: true;
  kind: 'fixed' | 'percent';
  percent: number | null;
  bonus_inr: number | null;
  expires_at: string | null;
}

/** POST /me/billing/verify. */
export interface Verified {
  credited: boolean;
  order_id: string;
  payment_id: string;
  credit_inr: number;
  bonus_inr: number;
  balance_inr: number;
  receipt_url: string;
}

/** GST state codes and names: the server's own list, so the two cannot drift. The address's state is the place of supply. */
export { GST_STATES } from '../../../../src/lib/gst-codes';
