import { errors } from '../errors/catalog.js';

/** A client's value in a message, cut to 40 characters. */
export const shown = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** The query string as a map; unknown or repeated parameters are a 400, so a typo is not silently ignored. */
export function queryParams(raw: string, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(raw)) {
    if (!allowed.includes(k)) {
      throw errors.badRequest(`Unknown query parameter ${shown(k)}${allowed.length ? `; this endpoint takes ${allowed.join(', ')}` : ''}`);
    }
    if (out.has(k)) throw errors.badRequest(`Query parameter '${k}' is given more than once`);
    out.set(k, v);
  }
  return out;
}
