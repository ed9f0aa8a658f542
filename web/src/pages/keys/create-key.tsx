import { useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { navigate } from '../../lib/router';
import { money, when } from '../../lib/format';
import { Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { Notice } from '../../components/notice';
import { CopyButton } from '../../components/copy-button';
import { offerToPlayground, optionalRupees, optionalWhole, type CreatedKey } from './key-types';

/**
 * Create a key (POST /me/keys), then show it once. The full key lives only in this component's
 * state while the dialog is open: closing drops it, and nothing else on the page ever holds it.
 */
export function CreateKey(p: { open: boolean; trial: boolean; onClose: () => void; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [budget, setBudget] = useState('');
  const [days, setDays] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [made, setMade] = useState<CreatedKey | null>(null);

  const close = () => {
    setMade(null);
    setName('');
    setBudget('');
    setDays('');
    setError('');
    p.onClose();
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const expiry = optionalWhole('Expires after (days)', days, 1, 365);
    const cap = p.trial ? { value: null } : optionalRupees('Monthly budget', budget);
    if ('error' in expiry || 'error' in cap) {
      setError('error' in expiry ? expiry.error : (cap as { error: string }).error);
      return;
    }
    const body: Record<string, unknown> = {};
    if (name.trim()) body.name = name.trim();
    if (cap.value !== null) body.budget_inr = cap.value;
    if (expiry.value !== null) body.expires_days = expiry.value;
    setBusy(true);
    setError('');
    try {
      setMade(await api.post<CreatedKey>('/me/keys', body));
      p.onCreated();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (made) {
    return (
      <Dialog open={p.open} title="Your new API key" onClose={close} actions={
        <>
          <button type="button" class="btn" onClick={() => { offerToPlayground(made.key); close(); navigate('/playground'); }}>Try it in the Playground</button>
          <button type="button" class="btn btn-primary" onClick={close}>Done, I have copied it</button>
        </>
      }>
        <Notice tone="warn" title="Copy it now.">
          You will not see this key again: the gateway keeps only a hash of it. If you lose it, revoke it and create another.
        </Notice>
        <div class="field">
          <span class="field-label" id="new-key-label">Key “{made.name}”</span>
          <pre class="secret" aria-labelledby="new-key-label" tabIndex={0}>{made.key}</pre>
        </div>
        <div><CopyButton text={made.key} label="Copy the key" /></div>
        <p class="muted">
          {made.tier === 'trial' ? 'Trial key: free, 60 requests a minute and 200 a day.' : 'Standard key: billed per request from the organisation’s credit.'}
          {made.budget_inr !== null && <> Monthly budget {money(made.budget_inr)}.</>}
          {' '}{made.expires_at ? `Expires ${when(made.expires_at)} IST.` : 'It does not expire.'}
        </p>
      </Dialog>
    );
  }

  return (
    <Dialog open={p.open} title="Create an API key" onClose={close}>
      <form class="form" id="create-key-form" onSubmit={submit} noValidate>
        <Field label="Name" value={name} onInput={setName} maxLength={64} autoComplete="off" autoFocus
          hint="Optional. Unique among your active keys, for example “laptop” or “prod-server”." />
        {p.trial ? (
          <p class="hint keys-form-note">
            Monthly budgets are for standard keys. Your organisation has no credit yet, so new keys are trial keys:
            free, capped at 60 requests a minute and 200 a day. Keys made after the first top-up are standard and take a budget.
          </p>
        ) : (
          <Field label="Monthly budget (₹)" value={budget} onInput={setBudget} inputMode="decimal" autoComplete="off"
            hint="Optional. Requests are refused once the key has spent this much in an IST calendar month. Empty: no budget." />
        )}
        <Field label="Expires after (days)" value={days} onInput={setDays} inputMode="numeric" autoComplete="off"
          hint="Optional, 1 to 365. Empty: the key does not expire." />
        {error && <p role="alert" class="error-text">{error}</p>}
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={close}>Cancel</button>
          <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create key'}</button>
        </div>
      </form>
    </Dialog>
  );
}
