/** Money is integer micro-rupees inside (DESIGN.md); ₹ numbers exist only at the API edge. */
export const MICROS_PER_INR = 1_000_000;

export function inrToMicros(inr: number): number {
  return Math.round(inr * MICROS_PER_INR);
}

export function microsToInr(micros: number): number;
export function microsToInr(micros: number | null): number | null;
export function microsToInr(micros: number | null): number | null {
  return micros === null ? null : micros / MICROS_PER_INR;
}

/** Rupees written as a decimal (`500`, `12.50`, up to 6 places) → micro-rupees, exactly; null for anything else. */
export function parseInr(text: string): number | null {
  if (!/^\d+(\.\d{1,6})?$/.test(text)) return null;
  const [whole, frac = ''] = text.split('.');
  return Number(whole) * MICROS_PER_INR + Number(frac.padEnd(6, '0'));
}

/** `1234.50`: rupees as a plain decimal with `places` (≤ 6) digits, cut from the integer micros (no float residue). */
export function formatInr(micros: number, places = 2): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  return `${sign}${Math.floor(abs / MICROS_PER_INR)}.${String(abs % MICROS_PER_INR).padStart(6, '0').slice(0, places)}`;
}

/** `₹1,234.50`: rupees with Indian digit grouping and paise, for mail and receipts. */
export function rupees(micros: number): string {
  return `₹${(micros / MICROS_PER_INR).toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** Micro-rupees in a paisa: the payment provider counts in paise. */
const MICROS_PER_PAISA = 10_000;

export function microsToPaise(micros: number): number {
  return Math.round(micros / MICROS_PER_PAISA);
}

export function paiseToMicros(paise: number): number {
  return paise * MICROS_PER_PAISA;
}
