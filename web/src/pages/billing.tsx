import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { money, num, when } from '../lib/format';
import { navigate, useLocation } from '../lib/router';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { Page, Section } from '../components/page';
import { Stat } from '../components/stat';
import { Empty, ErrorNotice, Loading, Notice } from '../components/notice';
import { AddressForm } from './billing/address-form';
import { LowBalance } from './billing/low-balance';
import { TopUp } from './billing/top-up';
import type { BillingView, MoneyEvent, Order, Payment, Verified } from './billing/types';
import './billing.css';

type Outcome =
  | { kind: 'verifying' }
  | { kind: 'credited'; v: Verified }
  | { kind: 'unverified'; message: string; paymentId: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'cancelled' };

/**
 * The checkout's return: /billing/return sends the browser here with the signed ids (or the
 * failure); the page verifies them with POST /me/billing/verify, the one place a checkout is
 * credited, and then takes them out of the address bar.
 */
function useCheckoutReturn(onCredited: () => void): Outcome | null {
  const loc = useLocation();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    const q = loc.query;
    const [orderId, paymentId, signature] = [q.get('order_id'), q.get('payment_id'), q.get('signature')];
    const failure = q.get('payment_error');
    if (failure !== null) {
      started.current = true;
      setOutcome({ kind: 'failed', reason: failure });
      navigate('/billing', { replace: true });
    } else if (q.has('payment_cancelled')) {
      started.current = true;
      setOutcome({ kind: 'cancelled' });
      navigate('/billing', { replace: true });
    } else if (orderId && paymentId && signature) {
      started.current = true;
      setOutcome({ kind: 'verifying' });
      api.post<Verified>('/me/billing/verify', { order_id: orderId, payment_id: paymentId, signature })
        .then((v) => {
          setOutcome({ kind: 'credited', v });
          onCredited();
        }, (e: Error) => setOutcome({ kind: 'unverified', message: e.message, paymentId }))
        .finally(() => navigate('/billing', { replace: true }));
    }
  }, []);
  return outcome;
}

function OutcomeNotice(p: { outcome: Outcome | null }) {
  const o = p.outcome;
  if (!o) return null;
  if (o.kind === 'verifying') return <Loading label="Confirming your payment with the payment provider…" />;
  if (o.kind === 'cancelled') return <Notice tone="info">You left the checkout without paying. Nothing was charged.</Notice>;
  if (o.kind === 'failed') {
    return <Notice tone="error" title="The payment did not go through.">{o.reason.replace(/[.!?]?$/, '.')} Nothing was credited; you can try again.</Notice>;
  }
  if (o.kind === 'unverified') {
    return (
      <Notice tone="error" title="The payment could not be confirmed.">
        {o.message} If money left your account, it is credited once the payment provider confirms it, usually within minutes.
        Payment reference: <code>{o.paymentId}</code>.
      </Notice>
    );
  }
  const v = o.v;
  return (
    <Notice tone="ok" title={`Payment received: ${money(v.credit_inr)} credited.`}>
      {v.bonus_inr > 0 && `A promo bonus of ${money(v.bonus_inr)} was added too. `}
      Your balance is now <strong>{money(v.balance_inr)}</strong>.{' '}
      <a href={v.receipt_url} target="_blank" rel="noopener">Open the receipt</a>
    </Notice>
  );
}

/** A table that may scroll sideways on a phone: focusable, so the keyboard can scroll it too. */
function Scroll(p: { label: string; children: ComponentChildren }) {
  return <div class="table-wrap" tabIndex={0} role="region" aria-label={p.label}>{p.children}</div>;
}

const KINDS: Record<string, string> = {
  payment: 'Top-up', promo_bonus: 'Promo bonus', operator_credit: 'Credit from the operator', signup_credit: 'Sign-up credit',
  refund: 'Refund', adjustment: 'Adjustment',
};

/** Balance and history, top-ups through the payment provider, the billing address, receipts, the low-balance alert (owner). */
export function Billing(_p: { params: Record<string, string> }) {
  const { me, refresh } = useSession();
  const billing = useData(() => api.get<BillingView>('/me/billing'), [me.org.id]);
  const outcome = useCheckoutReturn(() => {
    void billing.reload();
    void refresh();
  });
  const b = billing.data;
  const low = b !== null && b.low_balance_inr !== null && b.balance_inr < b.low_balance_inr;

  return (
    <Page title="Billing" lead={<>Prepaid credit for <strong>{me.org.name}</strong>, used per request at the catalog's prices.</>}>
      <OutcomeNotice outcome={outcome} />
      <ErrorNotice error={billing.error} />
      {!b && billing.loading && <Loading />}
      {b && (
        <>
          <div class="stats">
            <Stat label="Balance" value={money(b.balance_inr)} tone={low || (me.org.tier === 'standard' && b.balance_inr <= 0) ? 'warn' : undefined}
              note={low ? `Below your ${money(b.low_balance_inr)} alert` : 'Prepaid credit'} />
            <Stat label="Spent, last 30 days" value={money(b.usage_30d.spent_inr)} note={`${num(b.usage_30d.requests)} requests`} />
            <Stat label="Low-balance alert" value={b.low_balance_inr === null ? 'Off' : money(b.low_balance_inr)} />
          </div>
          <div class="grid-2">
            <Section title="Top up">
              <TopUp topups={b.topups} hasAddress={b.address !== null} />
            </Section>
            <Section title="Billing address">
              <AddressForm address={b.address} onSaved={(address) => billing.set({ ...b, address })} />
            </Section>
          </div>
          <Section title="Low-balance alert">
            <LowBalance threshold={b.low_balance_inr} onSaved={(v) => billing.set({ ...b, low_balance_inr: v })} />
          </Section>
          <Section title="Payments"><Payments rows={b.payments} /></Section>
          <Section title="Money ledger"><Ledger rows={b.money_events} /></Section>
          <Section title="Top-up orders"><Orders rows={b.orders} /></Section>
        </>
      )}
    </Page>
  );
}

function Payments(p: { rows: Payment[] }) {
  if (p.rows.length === 0) return <Empty>No payments yet.</Empty>;
  return (
    <Scroll label="Payments table">
      <table class="billing-table">
        <thead><tr><th>When (IST)</th><th class="num">Charged</th><th>Method</th><th>Status</th><th>Receipt or reason</th></tr></thead>
        <tbody>
          {p.rows.map((r) => (
            <tr key={r.id}>
              <td class="billing-nowrap">{when(r.at)}</td>
              <td class="num">{money(r.amount_inr)}</td>
              <td>{r.method ?? '—'}</td>
              <td>{r.status === 'captured' ? <span class="badge badge-ok">Paid</span> : <span class="badge badge-danger">Failed</span>}</td>
              <td class="billing-wide">
                {r.receipt_url
                  ? <a href={r.receipt_url} target="_blank" rel="noopener" aria-label={`Receipt for payment ${r.id}`}>Receipt</a>
                  : <span class="muted">{r.error ?? '—'}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

function Ledger(p: { rows: MoneyEvent[] }) {
  if (p.rows.length === 0) return <Empty>No credits or payments yet.</Empty>;
  return (
    <Scroll label="Money ledger table">
      <table class="billing-table">
        <thead><tr><th>When (IST)</th><th>What</th><th class="num">Amount</th><th>Note</th></tr></thead>
        <tbody>
          {p.rows.map((r) => (
            <tr key={r.id}>
              <td class="billing-nowrap">{when(r.at)}</td>
              <td class="billing-nowrap">{KINDS[r.kind] ?? r.kind}</td>
              <td class={r.amount_inr < 0 ? 'num billing-debit' : 'num'}>{r.amount_inr > 0 ? '+' : ''}{money(r.amount_inr)}</td>
              <td class="billing-wide">{r.note ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

function Orders(p: { rows: Order[] }) {
  if (p.rows.length === 0) return <Empty>No top-up orders yet.</Empty>;
  return (
    <Scroll label="Top-up orders table">
      <table class="billing-table">
        <thead><tr><th>Created (IST)</th><th class="num">Credit</th><th class="num">Promo bonus</th><th class="num">Charged</th><th>Status</th><th>Order</th></tr></thead>
        <tbody>
          {p.rows.map((r) => (
            <tr key={r.id}>
              <td class="billing-nowrap">{when(r.created_at)}</td>
              <td class="num">{money(r.credit_inr)}</td>
              <td class="num">{r.bonus_inr > 0 ? `${money(r.bonus_inr)} (${r.promo_code})` : r.promo_code ? `— (${r.promo_code})` : '—'}</td>
              <td class="num">{money(r.total_inr)}</td>
              <td>{r.status === 'paid' ? <span class="badge badge-ok">Paid {when(r.paid_at)}</span> : <span class="badge">Not paid</span>}</td>
              <td><code>{r.id}</code></td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}
