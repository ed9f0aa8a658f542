import { errors } from '../../errors/catalog.js';
import type { NewKeyFacts } from '../../domain/stores/key-store.js';
import { TRIAL_DAILY, TRIAL_RPM } from '../../limits/limits-gate.js';

/** Longest key name, in the API's schema and the CLI's check. */
export const KEY_NAME_MAX = 64;
/** MCP-minted ephemeral keys: at most this many hours and requests a day each. */
export const EPHEMERAL_MAX_HOURS = 168;
export const EPHEMERAL_MAX_DAILY = 1_000;
/** Ephemeral keys an org may hold at once (they do not count toward its keys from the dashboard). */
export const EPHEMERAL_MAX_ACTIVE = 50;

/**
 * The rules a new key obeys (spec 7), in one place for every way a key is made: the API's
 * POST /me/keys and the operator's `gw key create` (which may override them with --force).
 * Checked on facts read inside the write transaction that inserts the key, so two requests
 * cannot both pass.
 */
export function checkNewKey(facts: NewKeyFacts, name: string, maxActive: number): void {
  if (facts.active >= maxActive) {
    throw errors.rule('cap', `An organisation can have at most ${maxActive} active keys (beta); revoke one first`);
  }
  if (facts.nameTaken) throw errors.rule('duplicate_key_name', `An active key named '${name}' already exists`);
}

/**
 * The limits the gateway applies to a key, as the API shows them: a trial key's are its own
 * lowered ones under the trial caps (never null, never above them, as the data plane enforces).
 */
export function effectiveLimits(tier: string, rpm: number | null, daily: number | null): { rpmLimit: number | null; dailyLimit: number | null } {
  if (tier !== 'trial') return { rpmLimit: rpm, dailyLimit: daily };
  return { rpmLimit: Math.min(rpm ?? TRIAL_RPM, TRIAL_RPM), dailyLimit: Math.min(daily ?? TRIAL_DAILY, TRIAL_DAILY) };
}

/** A trial key's limits may only be lowered, and it has no budget (it spends nothing). */
export function checkTrialPatch(rpm: number | null | undefined, daily: number | null | undefined, budgetSet: boolean): void {
  if ((rpm ?? 0) > TRIAL_RPM || (daily ?? 0) > TRIAL_DAILY) {
    throw errors.rule('trial_ceiling', `Trial keys are capped at ${TRIAL_RPM} per minute and ${TRIAL_DAILY} per day; add credit for a standard key`);
  }
  if (budgetSet) throw errors.badRequest('Monthly budgets apply to standard keys; trial keys are free');
}

export type KeyStatus = 'active' | 'revoked' | 'expired';

export function keyStatus(k: { revokedAt: number | null; expiresAt: number | null }, now: number): KeyStatus {
  return k.revokedAt !== null ? 'revoked' : k.expiresAt !== null && k.expiresAt <= now ? 'expired' : 'active';
}
