import { GST_STATES, gstinValid, stateCodeOf } from '../../lib/gst-codes.js';
import { pinStates } from '../../billing/pin-states.js';
import { errors } from '../../errors/catalog.js';
import type { BillingAddress } from '../../domain/stores/billing-store.js';
import { PIN_RE } from './pincode-lookup.js';

const text = (v: unknown, key: string, max: number, optional = false): string | null => {
  if (optional && (v === undefined || v === null || v === '')) return null;
  if (typeof v !== 'string') throw errors.badAddress(key, optional ? 'must be a string or null' : 'is required');
  const s = v.trim().replace(/\s+/g, ' ');
  if (s.length === 0) throw errors.badAddress(key, 'is required');
  if (s.length > max) throw errors.badAddress(key, `at most ${max} characters`);
  if (/[\u0000-\u001f\u007f]/.test(s)) throw errors.badAddress(key, 'control characters are not allowed');
  return s;
};

/** The address as the spec's bad_address asks: each field checked, the first failure named. */
export function parseAddress(b: Record<string, unknown>): BillingAddress {
  const name = text(b.name, 'name', 100)!;
  const line1 = text(b.line1, 'line1', 200)!;
  const line2 = text(b.line2, 'line2', 200, true);
  const city = text(b.city, 'city', 100)!;
  const stateText = text(b.state, 'state', 60)!;
  const state = stateCodeOf(stateText);
  if (!state) throw errors.badAddress('state', `'${stateText}' is not an Indian state or union territory`);
  const pincode = typeof b.pincode === 'number' ? String(b.pincode) : b.pincode;
  if (typeof pincode !== 'string' || !PIN_RE.test(pincode.trim())) throw errors.badAddress('pincode', 'six digits, not starting with 0');
  // The state is the GST place of supply: a PIN from another state would make the tax split wrong.
  const pinIn = pinStates(pincode.trim());
  if (pinIn !== null && !pinIn.includes(state)) {
    const where = pinIn.map((c) => `${GST_STATES.get(c)} (${c})`).join(' or ');
    throw errors.badAddress('pincode', `PIN code ${pincode.trim()} is in ${where}, not in ${GST_STATES.get(state)} (${state})`);
  }
  const gstinText = text(b.gstin, 'gstin', 15, true);
  const gstin = gstinText === null ? null : gstinText.toUpperCase();
  if (gstin !== null) {
    if (!gstinValid(gstin)) throw errors.badAddress('gstin', 'not a valid GSTIN (15 characters with a matching check character)');
    if (gstin.slice(0, 2) !== state) throw errors.badAddress('gstin', `registered in state ${gstin.slice(0, 2)}, not in ${state} (${GST_STATES.get(state)})`);
  }
  return { name, line1, line2, city, stateCode: state, pincode: pincode.trim(), gstin };
}
