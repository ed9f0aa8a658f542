/**
 * The spec's error codes in words a person reads. The gateway's own message is specific (it
 * names the field or the limit), so it is kept; these lead where a code alone would be cryptic.
 */
const LEAD: Record<string, string> = {
  no_session: 'You are signed out. Sign in again to continue.',
  forbidden: 'Your role in this organisation does not allow this.',
  not_found: 'That no longer exists here.',
  duplicate_key_name: 'You already have an active key with that name. Pick another name.',
  trial_ceiling: 'Trial keys are capped at 60 requests a minute and 200 a day. Top up to lift the cap.',
  invalid_api_key: 'The API key was refused: it is missing, revoked or expired.',
  insufficient_credits: 'The organisation has no credit left. Top up to continue.',
  rate_limit_exceeded: 'Too many requests in the last minute. Wait a moment and try again.',
  daily_limit_reached: "This key has used today's requests. It resets at midnight IST.",
  budget_exceeded: "This key's or workspace's monthly budget is spent. It resets with the new month.",
  model_not_found: 'That model is not in the catalog.',
  no_route: 'No provider can serve this model under these constraints right now.',
  all_routes_failed: 'Every provider for this model failed. Try again shortly.',
  address_required: 'Add a billing address before your first top-up.',
  bad_address: 'The billing address needs a fix.',
  promo_invalid: 'That promo code does not exist, has expired or is used up.',
  promo_redeemed: 'Your organisation has already used that promo code.',
  billing_disabled: 'Top-ups are not set up on this gateway. Ask its operator.',
  bad_key: 'That provider key does not look right.',
  unknown_provider: 'That provider does not take saved keys.',
  byok_disabled: 'Saved provider keys are turned off on this gateway.',
  bad_steps: 'The routing steps need a fix.',
  bad_model: 'That model is not in the catalog.',
  bad_name: 'The name needs a fix.',
  bad_readme: 'The README needs a fix.',
  cap: 'Your organisation has reached its limit for these.',
  team_cap: 'You have reached the limit of team organisations.',
  member_cap: 'This organisation has reached its member limit.',
  bad_email: 'That email address does not look right.',
  bad_role: 'That role does not exist.',
  already_member: 'That person is already a member.',
  already_invited: 'That person already has a pending invitation.',
  last_owner: 'An organisation needs at least one owner.',
  personal_org: 'A personal organisation cannot have members. Create a team organisation first.',
  duplicate_workspace: 'A workspace with that name already exists.',
  unavailable: 'This is not available on this gateway right now.',
  provider_not_configured: 'That sign-in method is not set up on this gateway.',
  already_answered: 'You have already answered the survey.',
  payload_too_large: 'That is too large to send.',
};

/** The words shown for an error: the lead for its code, then the gateway's own detail. */
export function humanMessage(code: string, detail: string, status: number): string {
  const lead = LEAD[code];
  if (lead && detail && !sameIdea(lead, detail)) return `${lead} ${withStop(detail)}`;
  if (lead) return lead;
  if (detail) return withStop(detail);
  return status >= 500 ? 'The gateway had a problem. Try again in a moment.' : 'That did not work.';
}

const withStop = (s: string): string => (/[.!?]$/.test(s) ? s : s + '.');
const sameIdea = (a: string, b: string): boolean => a.toLowerCase().startsWith(b.toLowerCase().slice(0, 24));
