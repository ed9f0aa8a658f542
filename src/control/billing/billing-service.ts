import { topupTax, type TopupTax } from '../../billing/gst.js';
import { GST_STATES } from '../../lib/gst-codes.js';
import type { Config } from '../../config/schema.js';
import { errors } from '../../errors/catalog.js';
import type { BillingStore, MoneyEvent, Payment, Promo, SavedAddress, TopupOrder } from '../../domain/stores/billing-store.js';
import type { OrgStore } from '../../domain/stores/org-store.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { microsToPaise } from '../../lib/money.js';
import { perMinuteLimiter } from '../../limits/ip-limiter.js';
import { istDayLabel, istDayNumber } from '../../lib/ist.js';
import { parseAddress } from './billing-address.js';
import {
  bonusOf, checkOrderRate, checkPromo, LISTED, ORDERS_LISTED, orderRateSince, PIN_LOOKUPS_PER_MINUTE, topupCredit,
} from './billing-rules.js';
import type { PaymentService } from './payment-service.js';
import type { PinPlace } from './pincode-lookup.js';
import { renderReceipt } from './receipt.js';

/** An org's usage by IST day, as the shared usage rollup keeps it (structurally, store/usage-rollup's UsageRollup). */
export interface DailyUsage {
  read(orgId: string): Promise<{ cells(fromDay: number, toDay: number): readonly { day: number; requests: number; costMicros: number }[] }>;
}

export interface BillingServiceDeps {
  billing: BillingStore;
  orgs: OrgStore;
  payments: PaymentService;
  pincodes: { lookup(pin: string): Promise<PinPlace> };
  usage: DailyUsage;
  clock: Clock;
  config: Readonly<Pick<Config, 'billing' | 'smtp'>>;
}

export interface BillingOverview {
  balanceMicros: number;
  lowBalanceMicros: number | null;
  topups: { enabled: boolean; minInr: number; maxInr: number; keyId: string | null; checkoutUrl: string | null };
  address: SavedAddress | null;
  moneyEvents: MoneyEvent[];
  payments: Payment[];
  orders: TopupOrder[];
  usage30d: { requests: number; spentMicros: number; days: { day: string; requests: number; costMicros: number }[] };
}

export interface NewOrder {
  order: TopupOrder;
  tax: TopupTax;
  amountPaise: number;
  keyId: string;
  /** The state named by the place of supply. */
  placeOfSupplyState: string;
  checkoutUrl: string;
  merchantName: string;
}

/**
 * /me/billing (spec 4.6): the balance and its history, the billing address that decides GST,
 * top-up orders (paid through the provider's checkout and credited by the PaymentService),
 * promo codes, the low-balance mail threshold and receipts.
 */
export class BillingService {
  readonly #d: BillingServiceDeps;
  readonly #pinGate: (orgId: string) => void;

  constructor(deps: BillingServiceDeps) {
    this.#d = deps;
    this.#pinGate = perMinuteLimiter(PIN_LOOKUPS_PER_MINUTE, deps.clock, `${PIN_LOOKUPS_PER_MINUTE} PIN lookups per minute per organisation`, 10_000);
  }

  async overview(orgId: string): Promise<BillingOverview> {
    const { billing, orgs, clock, payments, config } = this.#d;
    const now = clock.now();
    const address = await billing.address(orgId);
    // From the shared usage rollup: a GROUP BY over the ledger would block the data plane's event loop.
    const today = istDayNumber(now);
    const byDay = new Map<number, { requests: number; cost: number }>();
    for (const c of (await this.#d.usage.read(orgId)).cells(today - 29, today)) {
      let t = byDay.get(c.day);
      if (t === undefined) byDay.set(c.day, (t = { requests: 0, cost: 0 }));
      t.requests += c.requests;
      t.cost += c.costMicros;
    }
    const spend = [...byDay].sort(([a], [b]) => a - b);
    const lowBalanceMicros = await billing.lowBalance(orgId);
    const org = await orgs.find(orgId);
    const b = config.billing;
    return {
      balanceMicros: org!.balanceMicros,
      lowBalanceMicros,
      topups: {
        enabled: payments.enabled, minInr: b.minTopupInr, maxInr: b.maxTopupInr,
        keyId: payments.enabled ? payments.api.keyId : null, checkoutUrl: payments.enabled ? b.payments.checkoutUrl : null,
      },
      address: address ?? null,
      moneyEvents: await billing.listMoneyEvents(orgId, LISTED),
      payments: await billing.listPayments(orgId, LISTED),
      orders: await billing.listOrders(orgId, ORDERS_LISTED),
      usage30d: {
        requests: spend.reduce((n, [, t]) => n + t.requests, 0),
        spentMicros: spend.reduce((n, [, t]) => n + t.cost, 0),
        days: spend.map(([day, t]) => ({ day: istDayLabel(day), requests: t.requests, costMicros: t.cost })),
      },
    };
  }

  /** Saves the address after checking each field (400 bad_address names the first that fails). */
  async saveAddress(orgId: string, fields: Record<string, unknown>): Promise<SavedAddress> {
    return this.#d.billing.saveAddress(orgId, parseAddress(fields), this.#d.clock.now());
  }

  /** City and state of a PIN code, within the org's lookups a minute. */
  async lookupPin(orgId: string, pin: string): Promise<PinPlace> {
    this.#pinGate(orgId);
    return this.#d.pincodes.lookup(pin);
  }

  /**
   * Makes a top-up order with the payment provider: whole rupees within bounds, at most so many
   * an hour, taxed by the saved address's state, with an optional promo's bonus (paid out when
   * the order is).
   */
  async createOrder(orgId: string, userId: string, input: { amountInr: number; promoCode?: string }): Promise<NewOrder> {
    const { billing, clock, config } = this.#d;
    const b = config.billing;
    const api = this.#d.payments.api;
    const credit = topupCredit(input.amountInr, b.minTopupInr, b.maxTopupInr);
    const address = await billing.address(orgId);
    if (!address) throw errors.addressRequired();
    const now = clock.now();
    checkOrderRate(await billing.ordersSince(orgId, orderRateSince(now)), b.maxOrdersPerHour, now);
    const promo = input.promoCode === undefined ? null : await this.#openPromo(orgId, input.promoCode);
    const bonus = promo ? bonusOf(promo, credit) : 0;
    const tax = topupTax(credit, address.stateCode, b.seller.state!);
    const amountPaise = microsToPaise(tax.totalMicros);
    const orderId = await api.createOrder(amountPaise, newId('topup'), { org_id: orgId, credit_inr: String(input.amountInr) });
    const { updatedAt: _, ...billTo } = address;
    const order = {
      id: orderId, orgId, createdBy: userId, creditMicros: credit, cgstMicros: tax.cgstMicros, sgstMicros: tax.sgstMicros,
      igstMicros: tax.igstMicros, totalMicros: tax.totalMicros, placeOfSupply: address.stateCode, billTo,
      promoCode: promo?.code ?? null, promoBonusMicros: bonus, createdAt: now,
    };
    await billing.createOrder(order);
    return {
      order: { ...order, status: 'created', paymentId: null, receiptNo: null, paidAt: null, paidVia: null },
      tax, amountPaise, keyId: api.keyId, placeOfSupplyState: GST_STATES.get(address.stateCode)!,
      checkoutUrl: b.payments.checkoutUrl, merchantName: b.seller.name,
    };
  }

  /** A promo code the org could apply, and its bonus on `amountInr` (a fixed bonus needs none). */
  async checkPromo(orgId: string, code: string, amountInr?: number): Promise<{ promo: Promo; bonusMicros: number | null }> {
    if (!this.#d.payments.enabled) throw errors.billingDisabled();
    const b = this.#d.config.billing;
    const promo = await this.#openPromo(orgId, code);
    const credit = amountInr === undefined ? null : topupCredit(amountInr, b.minTopupInr, b.maxTopupInr);
    return { promo, bonusMicros: promo.kind === 'fixed' ? promo.value : credit === null ? null : bonusOf(promo, credit) };
  }

  /** Sets the low-balance mail threshold, or clears it with null; a threshold needs a mail relay. */
  async setLowBalance(orgId: string, micros: number | null): Promise<number | null> {
    if (micros !== null && this.#d.config.smtp.host === undefined) {
      throw errors.rule('unavailable', 'Low-balance mail needs a mail relay, and this gateway has none (smtp.host)');
    }
    await this.#d.billing.setLowBalance(orgId, micros);
    return micros;
  }

  /** The printable receipt of a payment that paid one of the org's top-ups. */
  async receipt(orgId: string, paymentId: string): Promise<string> {
    const paid = await this.#d.billing.paidOrderByPayment(paymentId);
    if (!paid || paid.order.orgId !== orgId) throw errors.notFound(`No paid top-up with payment '${paymentId}' in this organisation`);
    return renderReceipt(paid.order, { id: paid.order.paymentId!, method: paid.method }, this.#d.config.billing.seller);
  }

  async #openPromo(orgId: string, raw: string): Promise<Promo> {
    const code = raw.trim();
    return checkPromo(await this.#d.billing.promo(code, orgId), code, this.#d.clock.now());
  }
}
