import { useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { money } from '../../lib/format';
import { Field } from '../../components/field';
import { Notice } from '../../components/notice';

/** The low-balance mail: the owners are mailed once each time the balance falls below it. */
export function LowBalance(p: { threshold: number | null; onSaved: (v: number | null) => void }) {
  const [value, setValue] = useState(p.threshold === null ? '' : String(p.threshold));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');

  const save = async (next: number | null) => {
    setBusy(true);
    setError('');
    setDone('');
    try {
      const r = await api.post<{ low_balance_inr: number | null }>('/me/billing/settings', { low_balance_inr: next });
      p.onSaved(r.low_balance_inr);
      setValue(r.low_balance_inr === null ? '' : String(r.low_balance_inr));
      setDone(r.low_balance_inr === null ? 'Low-balance alert turned off.' : `Saved: the owners are emailed when the balance falls below ${money(r.low_balance_inr)}.`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const v = value.trim();
    const n = Number(v);
    if (v === '' || !Number.isFinite(n) || n < 0) {
      setError('Enter an amount in rupees, 0 or more, or turn the alert off.');
      return;
    }
    void save(n);
  };

  return (
    <form class="form" onSubmit={submit} aria-label="Low-balance alert" noValidate>
      <p>{p.threshold === null ? 'No alert is set.' : <>The owners are emailed when the balance falls below <strong>{money(p.threshold)}</strong>.</>}</p>
      <div class="form-row">
        <Field label="Email the owners below (₹)" type="number" value={value} onInput={(v) => { setValue(v); setError(''); }} min={0} step="any" inputMode="decimal" />
        <button type="submit" class="btn btn-primary" disabled={busy}>Save alert</button>
        {p.threshold !== null && <button type="button" class="btn" disabled={busy} onClick={() => save(null)}>Turn off</button>}
      </div>
      <p class="hint">One email each time the balance falls below it; a top-up above it re-arms the alert.</p>
      {error && <Notice tone="error">{error}</Notice>}
      {done && <Notice tone="ok">{done}</Notice>}
    </form>
  );
}
