import { errors } from '../errors/catalog.js';
import { guardChatBody, guardEmbeddingsBody, guardMessagesBody } from '../guardrails/content-guard.js';
import { Guard } from '../guardrails/guard.js';
import { guardrailsOn, parsePolicyText, policyFromText, type GuardrailPolicy } from '../lib/guardrail-policy.js';
import type { TokenEndpoint } from '../providers/types.js';
import type { Extensions } from '../domain/extensions.js';
import type { InferenceBody } from './inference-body.js';

/**
 * The request's guardrail, most specific first: the body's `guardrails` member, the
 * x-gw-guardrails header, the key's setting, the org's, the gateway's default. Null when none
 * is on, which is every request of a gateway that has none configured: the caller then does no
 * guardrail work at all.
 */
export function requestGuard(body: { ext: Extensions }, header: string | undefined, stored: string | null,
  fallback: GuardrailPolicy | null): Guard | null {
  let policy = body.ext.guardrails;
  if (policy === null && header !== undefined && header !== '') policy = headerPolicy(header);
  if (policy === null && stored !== null) policy = policyFromText(stored);
  if (policy === null) policy = fallback;
  return guardrailsOn(policy) ? new Guard(policy) : null;
}

function headerPolicy(header: string): GuardrailPolicy {
  const p = policyFromText(header);
  if (p !== null) return p;
  throw errors.badRequest(`Invalid 'x-gw-guardrails' header: ${parsePolicyText(header).error}`);
}

/**
 * The body with every text the user sent checked: redacted in place, or refused (the guard
 * throws 400 guardrail_blocked). A body with nothing redacted goes on as the client's own bytes;
 * a redacted one is re-serialised from its decoded payload, so the client's text never leaves.
 * A request checked on its answers too is not sent to a native route (Anthropic to Anthropic,
 * whose answer would pass through unread): it is translated, and so is its answer.
 */
export function guardedInput(endpoint: TokenEndpoint, body: InferenceBody, guard: Guard): InferenceBody {
  const payload = body.payload;
  if (endpoint === 'embeddings') guardEmbeddingsBody(payload, guard);
  else guardChatBody(payload, guard);
  const native = body.native ?? null;
  if (native !== null) guardMessagesBody(native.payload, guard);
  const keepNative = !guard.policy.outputs;
  if (!guard.redacted && (native === null || keepNative)) return body;
  // A redacted native body is sent as its decoded payload, never as the client's bytes (named
  // member by member: a scanned body's payload is a getter, which a spread would not copy).
  return {
    payload, model: body.model, stream: body.stream, maxTokens: body.maxTokens, bytes: body.bytes, ext: body.ext, raw: null,
    usageAsked: body.usageAsked, native: keepNative && native !== null ? { format: native.format, payload: native.payload, headers: native.headers, forward: null } : null,
  };
}
