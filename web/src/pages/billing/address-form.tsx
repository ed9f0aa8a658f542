import { useRef, useState } from 'preact/hooks';
import { api, ApiError, seg } from '../../lib/api';
import { Field, Select } from '../../components/field';
import { Notice } from '../../components/notice';
import { GST_STATES, type Address } from './types';

interface PinPlace { pincode: string; city: string; district: string; state: string; state_code: string }

const PIN_RE = /^[1-9]\d{5}$/;
const LABELS: Record<string, string> = {
  name: 'Name', line1: 'Address line 1', line2: 'Address line 2', city: 'City or district', state: 'State', pincode: 'PIN code', gstin: 'GSTIN',
};
const STATE_OPTIONS = [{ value: '', label: 'Choose a state or union territory' },
  ...[...GST_STATES].sort((a, b) => a[1].localeCompare(b[1])).map(([code, name]) => ({ value: code, label: name }))];

interface Draft { name: string; line1: string; line2: string; pincode: string; city: string; state: string; gstin: string }
const draftOf = (a: Address | null): Draft => ({
  name: a?.name ?? '', line1: a?.line1 ?? '', line2: a?.line2 ?? '', pincode: a?.pincode ?? '', city: a?.city ?? '', state: a?.state_code ?? '', gstin: a?.gstin ?? '',
});

/** What went wrong with a PIN lookup, in words that say what to do next. */
function pinTrouble(pin: string, e: unknown): string {
  if (e instanceof ApiError) {
    if (e.code === 'not_found') return `No post office has PIN code ${pin}. Check the number, or fill in the city and state yourself.`;
    if (e.code === 'unavailable' || e.status >= 500) return 'The PIN code lookup is not answering right now. Fill in the city and state yourself.';
    if (e.code === 'rate_limit_exceeded') return 'Too many PIN lookups in the last minute. Fill in the city and state yourself, or wait a minute.';
    return e.message;
  }
  return 'The PIN code lookup did not answer. Fill in the city and state yourself.';
}

/**
 * The billing address: required before the first top-up, its state is the GST place of supply.
 * Typing a six-digit PIN code fills in the city and state from the postal lookup.
 */
export function AddressForm(p: { address: Address | null; onSaved: (a: Address) => void }) {
  const [editing, setEditing] = useState(p.address === null);
  const [d, setD] = useState<Draft>(() => draftOf(p.address));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; field: string | null } | null>(null);
  const [saved, setSaved] = useState(false);
  const [pin, setPin] = useState<{ tone: 'info' | 'ok' | 'error'; text: string } | null>(null);
  const lookupSeq = useRef(0);
  const set = (k: keyof Draft) => (v: string) => {
    setD((x) => ({ ...x, [k]: v }));
    setSaved(false);
  };

  const pinInput = async (raw: string) => {
    const value = raw.replace(/\s+/g, '');
    set('pincode')(value);
    const mine = ++lookupSeq.current;
    if (value.length < 6) {
      setPin(null);
      return;
    }
    if (!PIN_RE.test(value)) {
      setPin({ tone: 'error', text: 'A PIN code is six digits and does not start with 0.' });
      return;
    }
    setPin({ tone: 'info', text: `Looking up PIN code ${value}…` });
    try {
      const place = await api.get<PinPlace>(`/me/billing/pincode/${seg(value)}`);
      if (mine !== lookupSeq.current) return;
      setD((x) => ({ ...x, city: place.city, state: place.state_code }));
      setPin({ tone: 'ok', text: `Filled in from PIN code ${value}: ${place.city}, ${place.state}.` });
    } catch (e) {
      if (mine === lookupSeq.current) setPin({ tone: 'error', text: pinTrouble(value, e) });
    }
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const a = await api.post<Address>('/me/billing/address', {
        name: d.name, line1: d.line1, line2: d.line2.trim() || null, city: d.city, state: d.state, pincode: d.pincode, gstin: d.gstin.trim() || null,
      });
      setD(draftOf(a));
      setSaved(true);
      setEditing(false);
      p.onSaved(a);
    } catch (err) {
      const m = err instanceof ApiError && err.code === 'bad_address' ? /Invalid '(\w+)': (.*)/.exec(err.detail) : null;
      if (m) setError({ text: `Check the ${LABELS[m[1]] ?? m[1]}: ${m[2]}.`, field: m[1] });
      else setError({ text: (err as Error).message, field: null });
    } finally {
      setBusy(false);
    }
  };

  if (!editing && p.address) {
    const a = p.address;
    return (
      <div class="billing-address">
        {saved && <Notice tone="ok">Billing address saved.</Notice>}
        <address>
          <strong>{a.name}</strong><br />
          {a.line1}<br />
          {a.line2 && <>{a.line2}<br /></>}
          {a.city} {a.pincode}<br />
          {a.state} (GST state code {a.state_code})
          {a.gstin && <><br />GSTIN {a.gstin}</>}
        </address>
        <p class="muted">Top-ups are taxed for {a.state}: the state in this address is the GST place of supply.</p>
        <button type="button" class="btn" onClick={() => { setEditing(true); setSaved(false); }}>Edit address</button>
      </div>
    );
  }

  const bad = (f: string) => error?.field === f;
  return (
    <form class="form billing-address-form" onSubmit={save} aria-label="Billing address" noValidate>
      <p class="muted">Needed before the first top-up: the state decides how GST is charged, and receipts are addressed to it.</p>
      <Field label="Name (person or business)" value={d.name} onInput={set('name')} required maxLength={100} autoComplete="name" invalid={bad('name')} />
      <Field label="Address line 1" value={d.line1} onInput={set('line1')} required maxLength={200} autoComplete="address-line1" invalid={bad('line1')} />
      <Field label="Address line 2 (optional)" value={d.line2} onInput={set('line2')} maxLength={200} autoComplete="address-line2" invalid={bad('line2')} />
      <div class="form-row">
        <Field label="PIN code" value={d.pincode} onInput={pinInput} required inputMode="numeric" maxLength={6} pattern="[1-9][0-9]{5}"
          autoComplete="postal-code" invalid={bad('pincode') || pin?.tone === 'error'} />
        <Field label="City or district" value={d.city} onInput={set('city')} required maxLength={100} autoComplete="address-level2" invalid={bad('city')} />
      </div>
      <p class={pin?.tone === 'error' ? 'billing-pin error-text' : 'billing-pin muted'} role="status" aria-live="polite">{pin?.text ?? 'Type the six-digit PIN code: the city and state fill in from it.'}</p>
      <Select label="State or union territory" value={d.state} onChange={set('state')} options={STATE_OPTIONS} name="state" />
      <Field label="GSTIN (optional)" value={d.gstin} onInput={set('gstin')} maxLength={15} autoComplete="off" invalid={bad('gstin')}
        hint="A registered business's 15-character GST number, for input tax credit. It must be registered in the state above." />
      {error && <Notice tone="error">{error.text}</Notice>}
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : 'Save address'}</button>
        {p.address && <button type="button" class="btn" onClick={() => { setEditing(false); setD(draftOf(p.address)); setError(null); setPin(null); }}>Cancel</button>}
      </div>
    </form>
  );
}
