import { useState } from 'preact/hooks';
import { api, ApiError } from '../../lib/api';
import { money } from '../../lib/format';
import { useSession } from '../../lib/session';
import { Field } from '../../components/field';
import { Notice } from '../../components/notice';
import type { NewOrder, PromoCheck, Topups } from './types';

/** A top-up refusal in words; address_required says where the address goes. */
function topupTrouble(e: unknown): string {
  if (e instanceof ApiError && e.code === 'address_required') {
    return 'Add a billing address (below) before your first top-up: its state decides how GST is charged.';
  }
  return (e as Error).message;
}

/** The promo's bonus on this amount, as the gateway prices it. */
const bonusOn = (p: PromoCheck, amount: number | null): number | null =>
  p.kind === 'fixed' ? p.bonus_inr : amount === null ? null : Math.round(amount * (p.percent ?? 0)) / 100;

/**
 * A top-up: amount and optional promo code, then the order with its GST, then the payment
 * provider's hosted checkout (a form post, a top-level navigation: no third-party script runs
 * here). The checkout posts back to /billing/return, which brings the browser to this page.
 */
export function TopUp(p: { topups: Topups; hasAddress: boolean }) {
  const { me } = useSession();
  const t = p.topups;
  const [amount, setAmount] = useState(() => String(Math.min(Math.max(500, t.min_inr), t.max_inr)));
  const [code, setCode] = useState('');
  const [promo, setPromo] = useState<PromoCheck | null>(null);
  const [promoError, setPromoError] = useState('');
  const [checking, setChecking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [order, setOrder] = useState<NewOrder | null>(null);

  const whole = /^\d+$/.test(amount.trim()) ? Number(amount.trim()) : null;
  const inRange = whole !== null && whole >= t.min_inr && whole <= t.max_inr;
  const amountHint = `Whole rupees, ${money(t.min_inr)} to ${money(t.max_inr)}. ${t.gst_percent}% GST is added on top.`;

  const checkPromo = async () => {
    const c = code.trim();
    setPromo(null);
    setPromoError('');
    if (!c) {
      setPromoError('Type a promo code first.');
      return;
    }
    setChecking(true);
    try {
      setPromo(await api.post<PromoCheck>('/me/billing/promo/check', inRange ? { code: c, amount_inr: whole } : { code: c }));
    } catch (e) {
      setPromoError((e as Error).message);
    } finally {
      setChecking(false);
    }
  };

  const createOrder = async (e: Event) => {
    e.preventDefault();
    setError('');
    if (!inRange) {
      setError(`Enter whole rupees from ${money(t.min_inr)} to ${money(t.max_inr)}.`);
      return;
    }
    setBusy(true);
    try {
      const c = code.trim();
      setOrder(await api.post<NewOrder>('/me/billing/orders', c ? { amount_inr: whole, promo_code: c } : { amount_inr: whole }));
    } catch (err) {
      setError(topupTrouble(err));
    } finally {
      setBusy(false);
    }
  };

  if (!t.enabled) {
    return (
      <Notice tone="info" title="Top-ups are not available on this gateway.">
        Its operator has not set up a payment provider. Ask them to add credit to your organisation, or to configure payments.
      </Notice>
    );
  }

  if (order) return <Review order={order} email={me.email} onBack={() => setOrder(null)} />;

  const bonus = promo ? bonusOn(promo, inRange ? whole : null) : null;
  return (
    <form class="form" onSubmit={createOrder} aria-label="Top up" noValidate>
      {!p.hasAddress && <p class="muted">Add a billing address first (below): its state decides the GST.</p>}
      <Field label="Amount (₹)" type="number" value={amount} onInput={(v) => { setAmount(v); setError(''); }} min={t.min_inr} max={t.max_inr} step={1}
        inputMode="numeric" required hint={amountHint} invalid={amount !== '' && !inRange} />
      <div class="form-row">
        <Field label="Promo code (optional)" value={code} onInput={(v) => { setCode(v); setPromo(null); setPromoError(''); }} maxLength={64} autoComplete="off" />
        <button type="button" class="btn" disabled={checking} onClick={checkPromo}>{checking ? 'Checking…' : 'Check code'}</button>
      </div>
      {promo && (
        <Notice tone="ok">
          {promo.code}: {promo.kind === 'percent' ? `${promo.percent}% extra credit` : `${money(promo.bonus_inr)} extra credit`}
          {bonus !== null && promo.kind === 'percent' ? `, ${money(bonus)} on this top-up` : ''}, added free when you pay.
          {promo.expires_at && ` Valid until ${new Date(promo.expires_at).toLocaleDateString('en-IN', { timeZone: 'Asia/Kolkata', dateStyle: 'medium' })}.`}
        </Notice>
      )}
      {promoError && <Notice tone="error">{promoError}</Notice>}
      {error && <Notice tone="error">{error}</Notice>}
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Preparing…' : 'Continue to payment'}</button>
      </div>
    </form>
  );
}

/** The order as it will be charged, and the form that opens the provider's checkout. */
function Review(p: { order: NewOrder; email: string; onBack: () => void }) {
  const o = p.order;
  const fields: [string, string][] = [
    ['key_id', o.key_id], ['order_id', o.order_id], ['amount', String(o.amount_paise)], ['currency', o.currency],
    ['name', o.merchant_name], ['description', `${money(o.credit_inr)} of prepaid credit${o.promo_code ? ` (promo ${o.promo_code})` : ''}`],
    ['prefill[email]', p.email], ['callback_url', `${location.origin}/billing/return`], ['cancel_url', `${location.origin}/billing?payment_cancelled=1`],
  ];
  return (
    <div class="billing-review">
      <table class="billing-breakdown">
        <caption>Your order (GST place of supply: {o.place_of_supply.state})</caption>
        <tbody>
          <tr><th scope="row">Credit</th><td class="num">{money(o.credit_inr)}</td></tr>
          {o.tax.igst_inr > 0
            ? <tr><th scope="row">IGST 18%</th><td class="num">{money(o.tax.igst_inr)}</td></tr>
            : <>
              <tr><th scope="row">CGST 9%</th><td class="num">{money(o.tax.cgst_inr)}</td></tr>
              <tr><th scope="row">SGST 9%</th><td class="num">{money(o.tax.sgst_inr)}</td></tr>
            </>}
          <tr class="billing-total"><th scope="row">To pay</th><td class="num">{money(o.total_inr)}</td></tr>
          {o.bonus_inr > 0 && <tr><th scope="row">Promo {o.promo_code}</th><td class="num">+{money(o.bonus_inr)} credit, free</td></tr>}
        </tbody>
      </table>
      <p class="muted">You will pay on the payment provider's page and come back here. Your balance goes up by {money(o.credit_inr + o.bonus_inr)} once the payment is confirmed.</p>
      <form method="post" action={o.checkout_url} class="actions">
        {fields.map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />)}
        <button type="submit" class="btn btn-primary">Pay {money(o.total_inr)}</button>
        <button type="button" class="btn" onClick={p.onBack}>Change the amount</button>
      </form>
    </div>
  );
}
