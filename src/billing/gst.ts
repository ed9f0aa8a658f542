/**
 * GST on top-ups (DESIGN.md, Top-up tax): the credit is `amount_inr`; the payment adds 18% GST,
 * split CGST 9% + SGST 9% when the place of supply (the billing address's state) is the
 * operator's state, otherwise IGST 18%. States are named by their GST state code (lib/gst-codes.ts).
 */

export interface TopupTax {
  cgstMicros: number;
  sgstMicros: number;
  igstMicros: number;
  totalMicros: number;
}

/**
 * The tax on a credit of whole rupees. 9% of a whole-rupee amount is a whole number of paise,
 * so the split is exact and needs no rounding.
 */
export function topupTax(creditMicros: number, placeOfSupply: string, sellerState: string): TopupTax {
  const nine = (creditMicros * 9) / 100;
  const intraState = placeOfSupply === sellerState;
  const cgst = intraState ? nine : 0;
  const igst = intraState ? 0 : nine * 2;
  return { cgstMicros: cgst, sgstMicros: cgst, igstMicros: igst, totalMicros: creditMicros + cgst * 2 + igst };
}
