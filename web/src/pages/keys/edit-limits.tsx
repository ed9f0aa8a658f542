import { useEffect, useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { optionalRupees, optionalWhole, type KeyItem } from './key-types';

const MAX_LIMIT = 1_000_000_000;
const text = (v: number | null): string => (v === null ? '' : String(v));

/**
 * PATCH /me/keys/:id (owner/admin): the per-minute and per-day request caps and, for standard
 * keys, the monthly ₹ budget. An empty field clears the limit (null); on a trial key that means
 * the trial cap, which the gateway never lets a key exceed (trial_ceiling).
 */
export function EditLimits(p: { item: KeyItem | null; onClose: () => void; onSaved: () => Promise<void> }) {
  const k = p.item;
  const [rpm, setRpm] = useState('');
  const [daily, setDaily] = useState('');
  const [budget, setBudget] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!k) return;
    setRpm(text(k.rpm_limit));
    setDaily(text(k.daily_limit));
    setBudget(text(k.monthly_budget));
    setError('');
  }, [k?.id]);

  const trial = k?.tier === 'trial';
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!k) return;
    const r = optionalWhole('Requests per minute', rpm, 1, MAX_LIMIT);
    const d = optionalWhole('Requests per day', daily, 1, MAX_LIMIT);
    const b = trial ? { value: null } : optionalRupees('Monthly budget', budget);
    const bad = [r, d, b].find((x): x is { error: string } => 'error' in x);
    if (bad) {
      setError(bad.error);
      return;
    }
    const body: Record<string, number | null> = { rpm_limit: (r as { value: number | null }).value, daily_limit: (d as { value: number | null }).value };
    if (!trial) body.budget_inr = (b as { value: number | null }).value;
    setBusy(true);
    setError('');
    try {
      await api.patch(`/me/keys/${seg(k.id)}`, body);
      await p.onSaved();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const none = trial ? 'Empty: the trial cap.' : 'Empty: no limit.';
  return (
    <Dialog open={k !== null} title={k ? `Limits of “${k.name}”` : 'Limits'} onClose={p.onClose}>
      {k && (
        <form class="form" onSubmit={submit} noValidate>
          <p class="muted">Changes apply to new requests within a minute.{trial && ' Trial keys can be lowered below 60 a minute and 200 a day, never raised above.'}</p>
          <Field label="Requests per minute" value={rpm} onInput={setRpm} inputMode="numeric" autoComplete="off" hint={`A rolling minute. ${none}`} />
          <Field label="Requests per day" value={daily} onInput={setDaily} inputMode="numeric" autoComplete="off" hint={`An IST calendar day, reset at midnight IST. ${none}`} />
          {trial ? (
            <p class="hint keys-form-note">Monthly budgets are for standard keys; trial keys are free.</p>
          ) : (
            <Field label="Monthly budget (₹)" value={budget} onInput={setBudget} inputMode="decimal" autoComplete="off"
              hint="Spend per IST calendar month. Empty: no budget." />
          )}
          {error && <p role="alert" class="error-text">{error}</p>}
          <div class="dialog-actions">
            <button type="button" class="btn" onClick={p.onClose}>Cancel</button>
            <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : 'Save limits'}</button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
