import type { Provider } from '../../catalog/catalog.js';
import { errors } from '../../errors/catalog.js';

const LABEL_MAX = 64;
// Visible ASCII only: the key becomes a header on the way to the provider.
const KEY_RE = /^[\x21-\x7e]{8,512}$/;

/** The live check reads an OpenAI-style model list, so only such BYOK providers take saved keys. */
export function takesSavedKeys(p: Provider): boolean {
  return p.entry.byok && p.entry.kind === 'openai-compatible';
}

/** A key that could be one: 400 bad_key before the provider is asked. */
export function checkKeyShape(provider: Provider, key: string): void {
  if (!KEY_RE.test(key)) throw errors.badKey(`That does not look like a ${provider.entry.name} key: 8 to 512 visible ASCII characters`);
}

/** A label trimmed, 1 to 64 characters without control characters; absent or null is no label. */
export function cleanLabel(raw: string | null | undefined): string | null {
  const label = raw === undefined || raw === null ? null : raw.trim();
  if (label !== null && (label.length === 0 || label.length > LABEL_MAX || /[\u0000-\u001f\u007f]/.test(label))) {
    throw errors.badRequest(`Invalid 'label': 1 to ${LABEL_MAX} characters without control characters`);
  }
  return label;
}
