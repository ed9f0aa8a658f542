import { errors } from '../errors/catalog.js';
import { parsePolicyText } from '../lib/guardrail-policy.js';

/**
 * A guardrail policy as a key's or org's setting is given (text, null to clear, absent to leave
 * as it is), checked and stored in its canonical text form, so the data plane's parse of it
 * cannot fail. Refused with 400 bad_request naming what is wrong.
 */
export function guardrailSetting(given: string | null | undefined): string | null | undefined {
  if (given === undefined || given === null) return given;
  const parsed = parsePolicyText(given);
  if (parsed.error !== null) throw errors.badRequest(`Invalid 'guardrails': ${parsed.error}`);
  return parsed.policy.text;
}
