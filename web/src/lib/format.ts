const IST = 'Asia/Kolkata';
const inr = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const inrFine = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2, maximumFractionDigits: 6 });
const count = new Intl.NumberFormat('en-IN');
const compact = new Intl.NumberFormat('en-IN', { notation: 'compact', maximumFractionDigits: 1 });

/** ₹ with paise; small amounts (a request's cost) keep their significant digits. */
export const money = (v: number | null | undefined): string =>
  v === null || v === undefined ? '—' : Math.abs(v) > 0 && Math.abs(v) < 0.01 ? inrFine.format(v) : inr.format(v);
export const num = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : count.format(v));
export const short = (v: number): string => compact.format(v);

const dateTime = new Intl.DateTimeFormat('en-IN', { timeZone: IST, dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat('en-IN', { timeZone: IST, dateStyle: 'medium' });
/** A timestamp (ISO string or epoch ms) in IST, as the gateway reckons days and months. */
export const when = (t: string | number | null | undefined): string => (t === null || t === undefined || t === '' ? '—' : dateTime.format(new Date(t)));
export const day = (t: string | number | null | undefined): string => (t === null || t === undefined || t === '' ? '—' : dateOnly.format(new Date(t)));

/** Today's date in IST as YYYY-MM-DD, offset by whole days. */
export function istDate(offsetDays = 0): string {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: IST, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
}

export const ms = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(2)} s`);
export const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(v === 1 ? 0 : 1)}%`);
