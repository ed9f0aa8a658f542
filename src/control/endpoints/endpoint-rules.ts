import type { NewEndpointFacts } from '../../domain/stores/custom-endpoint-store.js';
import { errors } from '../../errors/catalog.js';
import { blockedReason } from '../../lib/address-guard.js';

const NAME_RE = /^[a-z0-9][a-z0-9-]{0,31}$/;
// Visible ASCII only: the key becomes a header on the way to the endpoint.
const KEY_RE = /^[\x21-\x7e]{1,512}$/;

/** An endpoint's config as sent. */
export interface EndpointConfig {
  baseUrl: string;
  apiKey: string | null;
}

/** A name that can stand in `custom/<name>/<model>`. */
export function checkEndpointName(name: string): void {
  if (!NAME_RE.test(name)) {
    throw errors.badRequest(`Invalid 'name': lower-case letters, digits and dashes, 1 to 32, starting with a letter or digit`);
  }
}

/**
 * The config checked: a public http(s) URL (unless internal addresses are allowed; guarded
 * against server-side request forgery) and a plausible key. Returns the URL without trailing slashes.
 */
export async function checkEndpointConfig(c: EndpointConfig, allowInternal: boolean): Promise<{ baseUrl: string; key: string | null }> {
  let url: URL;
  try {
    url = new URL(c.baseUrl);
  } catch {
    throw errors.badRequest(`Invalid 'base_url': not a URL`);
  }
  const blocked = await blockedReason(url, allowInternal);
  if (blocked !== null) throw errors.badRequest(`Invalid 'base_url': ${blocked}`);
  if (c.apiKey !== null && !KEY_RE.test(c.apiKey)) throw errors.badRequest(`Invalid 'api_key': 1 to 512 visible ASCII characters`);
  return { baseUrl: url.toString().replace(/\/+$/, ''), key: c.apiKey };
}

/** A new endpoint's name is unique in the org, and the org is within its cap. */
export function checkNewEndpoint(facts: NewEndpointFacts, name: string, maxPerOrg: number): void {
  if (facts.nameTaken) throw errors.badRequest(`An endpoint named '${name}' already exists in this organisation`);
  if (facts.count >= maxPerOrg) throw errors.rule('cap', `An organisation can register at most ${maxPerOrg} endpoints`);
}
