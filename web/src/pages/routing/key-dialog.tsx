import { useEffect, useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { Dialog } from '../../components/dialog';
import { Check, Field } from '../../components/field';
import { ErrorNotice } from '../../components/notice';
import type { ByokProvider, SavedKey } from './types';

/**
 * Adds or replaces the org's key for one provider. The gateway checks it live before saving;
 * the typed key lives only in this form and is dropped when the dialog closes, saved or not.
 */
export function KeyDialog(p: { provider: ByokProvider | null; onClose: () => void; onSaved: (provider: ByokProvider, key: SavedKey) => unknown }) {
  const [key, setKey] = useState('');
  const [label, setLabel] = useState('');
  const [always, setAlways] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const prov = p.provider;
  useEffect(() => {
    setKey('');
    setLabel(prov?.saved?.label ?? '');
    setAlways(prov?.saved?.always_use ?? false);
    setError(null);
  }, [prov]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!prov) return;
    setBusy(true);
    setError(null);
    try {
      const saved = await api.put<SavedKey>(`/me/byok/${seg(prov.provider)}`, { key: key.trim(), label: label.trim() || null, always_use: always });
      setKey('');
      p.onSaved(prov, saved);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const close = () => {
    setKey('');
    p.onClose();
  };

  return (
    <Dialog open={prov !== null} title={prov ? `${prov.saved ? 'Replace' : 'Add'} the ${prov.name} key` : ''} onClose={close} actions={
      <>
        <button type="button" class="btn" onClick={close}>Cancel</button>
        <button type="submit" form="byok-form" class="btn btn-primary" disabled={busy || key.trim() === ''}>{busy ? `Checking with ${prov?.name}…` : 'Check and save'}</button>
      </>
    }>
      {prov && (
        <form id="byok-form" class="form" onSubmit={submit}>
          <Field label={`${prov.name} API key`} type="password" value={key} onInput={setKey} required autoComplete="off" autoFocus
            hint={<>Checked with {prov.name} before it is saved, then stored encrypted. After saving only a masked form (first 3 and last 4 characters) is shown.</>} />
          <Field label="Label (optional)" value={label} onInput={setLabel} maxLength={64} hint="To tell keys apart, for example the account it belongs to." />
          <Check label={`Use it for every call to ${prov.name}, catalog models included`} checked={always} onChange={setAlways} />
          <p class="hint">
            Without this, the key serves requests for <code>{prov.provider}/model-id</code> (any model the key can reach), and catalog models keep the gateway's key.
          </p>
          <ErrorNotice error={error} />
        </form>
      )}
    </Dialog>
  );
}
