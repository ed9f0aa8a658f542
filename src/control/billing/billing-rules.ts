import { errors } from '../../errors/catalog.js';
import { inrToMicros } from '../../lib/money.js';
import type { Promo } from '../../domain/stores/billing-store.js';

/** Money events and payments the billing page lists, newest first. */
export const LISTED = 100;
/** Top-up orders the billing page lists, newest first. */
export const ORDERS_LISTED = 20;
/** PIN lookups an org may make a minute: each unknown PIN is a call on a public service. */
export const PIN_LOOKUPS_PER_MINUTE = 30;
const HOUR_MS = 3_600_000;

/** A top-up is whole rupees within the operator's bounds (beta); returns the credit in micro-rupees. */
export function topupCredit(amountInr: number, minInr: number, maxInr: number): number {
  if (amountInr < minInr || amountInr > maxInr) {
    throw errors.badRequest(`Invalid 'amount_inr': whole rupees from ${minInr} to ${maxInr} per top-up (beta)`);
  }
  return inrToMicros(amountInr);
}

/** At most `perHour` orders an org makes in an hour: each is a call on the payment provider. */
export function checkOrderRate(recent: { count: number; first: number | null }, perHour: number, now: number): void {
  if (recent.count >= perHour) {
    throw errors.rateLimitExceeded(Math.max(1, Math.ceil((recent.first! + HOUR_MS - now) / 1000)), `at most ${perHour} top-up orders an hour`);
  }
}

/** The hour of orders `checkOrderRate` counts: those made after this instant. */
export const orderRateSince = (now: number): number => now - HOUR_MS;

/** Open to a new redemption at `now`: exists, enabled, unexpired, not used up. */
export function promoOpen(p: Promo | undefined, now: number): p is Promo {
  return p !== undefined && p.disabledAt === null && (p.expiresAt === null || p.expiresAt > now)
    && (p.maxRedemptions === null || p.redemptions < p.maxRedemptions);
}

/** A promo an org may apply to a new order: open, and not redeemed by the org before (one per org). */
export function checkPromo(found: { promo: Promo; redeemed: boolean } | undefined, code: string, now: number): Promo {
  const promo = found?.promo;
  if (!promoOpen(promo, now)) throw errors.promoInvalid(code);
  if (found!.redeemed) throw errors.promoRedeemed(promo.code);
  return promo;
}

/**
 * Whether an order's promo bonus is still credited when the order is paid. The code was checked
 * when the order was made (its expiry included); its cap and the one-per-org rule are settled
 * when the redemption is written, so two open orders cannot both take it.
 */
export function bonusStands(promo: Promo | undefined, redeemed: boolean): boolean {
  const capped = promo !== undefined && promo.maxRedemptions !== null && promo.redemptions >= promo.maxRedemptions;
  return promo !== undefined && promo.disabledAt === null && !capped && !redeemed;
}

/** The bonus a promo adds to a credit: a fixed amount, or a percentage of the credit. */
export const bonusOf = (p: Promo, creditMicros: number): number =>
  p.kind === 'fixed' ? p.value : Math.round((creditMicros * p.value) / 100);
