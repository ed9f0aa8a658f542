import { GST_STATES } from '../../lib/gst-codes.js';
import type { Config } from '../../config/schema.js';
import { IST_OFFSET_MS } from '../../lib/ist.js';
import { rupees } from '../../lib/money.js';
import type { TopupOrder } from '../../domain/stores/billing-store.js';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]);

/** The receipt number: R/<Indian financial year>/<gap-free sequence>. */
export function receiptNumber(o: TopupOrder): string {
  const d = new Date(o.paidAt! + IST_OFFSET_MS);
  const fy = d.getUTCMonth() >= 3 ? d.getUTCFullYear() : d.getUTCFullYear() - 1;
  return `R/${fy}-${String((fy + 1) % 100).padStart(2, '0')}/${String(o.receiptNo).padStart(6, '0')}`;
}

function istStamp(ms: number): string {
  const d = new Date(ms + IST_OFFSET_MS);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} IST`;
}

const stateLine = (code: string): string => `${GST_STATES.get(code) ?? code} (${code})`;

/**
 * A printable receipt for a paid top-up: seller, buyer as addressed when the order was made,
 * the credit, the GST split by place of supply and the total charged. Everything from a user
 * is escaped.
 */
export function renderReceipt(o: TopupOrder, payment: { id: string; method: string | null }, seller: Config['billing']['seller']): string {
  const to = o.billTo;
  const rows: [string, number][] = [[`Prepaid inference credit${seller.sac ? ` (SAC ${seller.sac})` : ''}`, o.creditMicros]];
  if (o.igstMicros > 0) rows.push(['IGST 18%', o.igstMicros]);
  else rows.push(['CGST 9%', o.cgstMicros], ['SGST 9%', o.sgstMicros]);
  const lines = rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td class="n">${rupees(v)}</td></tr>`).join('');
  const bonus = o.promoBonusMicros > 0
    ? `<p>Promo <b>${esc(o.promoCode!)}</b>: a further ${rupees(o.promoBonusMicros)} of credit was added free of charge.</p>` : '';
  const addr = [to.line1, to.line2, `${to.city} ${to.pincode}`, stateLine(to.stateCode)].filter((l): l is string => !!l).map(esc).join('<br>');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Receipt ${esc(receiptNumber(o))}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;color:#111}table{width:100%;border-collapse:collapse}
td,th{padding:.35rem .5rem;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}.t td{font-weight:600;border-top:2px solid #111}
@media print{body{margin:0}}</style></head><body>
<h1>Receipt</h1>
<p><b>${esc(seller.name)}</b>${seller.address ? `<br>${esc(seller.address)}` : ''}${seller.gstin ? `<br>GSTIN ${esc(seller.gstin)}` : ''}${seller.state ? `<br>State ${esc(stateLine(seller.state))}` : ''}</p>
<table><tr><th>Receipt</th><td>${esc(receiptNumber(o))}</td></tr><tr><th>Date</th><td>${istStamp(o.paidAt!)}</td></tr>
<tr><th>Order</th><td>${esc(o.id)}</td></tr><tr><th>Payment</th><td>${esc(payment.id)}${payment.method ? ` (${esc(payment.method)})` : ''}</td></tr>
<tr><th>Place of supply</th><td>${esc(stateLine(o.placeOfSupply))}</td></tr></table>
<h2>Billed to</h2><p><b>${esc(to.name)}</b><br>${addr}${to.gstin ? `<br>GSTIN ${esc(to.gstin)}` : ''}</p>
<table><tr><th>Item</th><th class="n">Amount</th></tr>${lines}<tr class="t"><td>Total paid</td><td class="n">${rupees(o.totalMicros)}</td></tr></table>
${bonus}<p>Credit is prepaid and debited per request at the catalog's prices.</p>
</body></html>
`;
}
