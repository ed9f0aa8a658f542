/** Money is integer micro-rupees inside (DESIGN.md); ₹ numbers exist only at the API edge. */
export const MICROS_PER_INR = 1_000_000;

export function inrToMicros(inr: number): number {
  return Math.round(inr * MICROS_PER_INR);
}

/** `₹1,234.50`: rupees with Indian digit grouping and paise, for mail and receipts. */
export function rupees(micros: number): string {
  return `₹${(micros / MICROS_PER_INR).toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

export function microsToInr(micros: number): number;
export function microsToInr(micros: number | null): number | null;
export function microsToInr(micros: number | null): number | null {
  return micros === null ? null : micros / MICROS_PER_INR;
}

/** Micro-rupees as exact ₹ text with six decimals (no 1e-7 notation, no float residue): CSV exports. */
export function microsToInrText(micros: number): string {
  return (micros / MICROS_PER_INR).toFixed(6);
}

/** Micro-rupees in a paisa: the payment provider counts in paise. */
const MICROS_PER_PAISA = 10_000;

export function microsToPaise(micros: number): number {
  return Math.round(micros / MICROS_PER_PAISA);
}

export function paiseToMicros(paise: number): number {
  return paise * MICROS_PER_PAISA;
}
