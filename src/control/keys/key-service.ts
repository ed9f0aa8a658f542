import { errors } from '../../errors/catalog.js';
import { guardrailSetting } from '../guardrail-setting.js';
import type { PromptCacheSetting, ResponseCacheMode } from '../../domain/cache-settings.js';
import type { KeyRecord } from '../../domain/key-record.js';
import type { CreatedKey, KeyAccount, KeyListRow, KeyStore } from '../../domain/stores/key-store.js';
import type { OrgStore } from '../../domain/stores/org-store.js';
import type { Clock } from '../../lib/clock.js';
import { istDay, istMonth } from '../../lib/ist.js';
import { orgIsFunded } from '../../domain/org-funding.js';
import {
  checkNewKey, checkTrialPatch, EPHEMERAL_MAX_ACTIVE, effectiveLimits, keyStatus, type KeyStatus,
} from './key-rules.js';

export interface KeyServiceDeps {
  keys: KeyStore;
  orgs: OrgStore;
  clock: Clock;
  /** Active keys an org may hold (config orgs.maxActiveKeysPerOrg). */
  maxActiveKeys: number;
  /** Tells the data plane that a key's cached record is stale. */
  keyChanged(keyId: string): void;
}

export interface KeyView extends KeyListRow {
  status: KeyStatus;
}

export interface NewKeyInput {
  name?: string;
  budgetMicros?: number;
  expiresDays?: number;
  workspaceId?: string;
}

export interface NewKeyResult extends CreatedKey {
  name: string;
  tier: KeyRecord['tier'];
  workspaceId: string;
  expiresAt: number | null;
}

export interface LimitsInput {
  rpmLimit?: number | null;
  dailyLimit?: number | null;
  monthlyBudgetMicros?: number | null;
  /** The key's own guardrail policy text (docs/guardrails.md); null to fall back to the org's. */
  guardrails?: string | null;
  /** The key's own cache settings (docs/cache.md, checked by the route's schema); null to fall back to the org's. */
  responseCache?: ResponseCacheMode | null;
  promptCache?: PromptCacheSetting | null;
}

/** API keys of an org (spec 3, 4.4, 7): who may mint, change and revoke them, and under which caps. */
export class KeyService {
  readonly #d: KeyServiceDeps;

  constructor(deps: KeyServiceDeps) {
    this.#d = deps;
  }

  /** Every key of the org with its status, the limits the data plane applies, and this IST month's spend. */
  async list(orgId: string): Promise<KeyView[]> {
    const now = this.#d.clock.now();
    const rows = await this.#d.keys.list(orgId, istMonth(now));
    return rows.map((k) => ({ ...k, ...effectiveLimits(k.tier, k.rpmLimit, k.dailyLimit), status: keyStatus(k, now) }));
  }

  /** Mints a key: standard once the org is funded, else trial; within the org's cap, with a unique active name. */
  async create(orgId: string, input: NewKeyInput): Promise<NewKeyResult> {
    const d = this.#d;
    const now = d.clock.now();
    const org = await d.orgs.find(orgId);
    if (!org) throw errors.notFound('No such organisation');
    const tier = orgIsFunded(org) ? 'standard' : 'trial';
    if (input.budgetMicros !== undefined && tier === 'trial') throw errors.badRequest('Monthly budgets apply to standard keys; trial keys are free');
    const name = (input.name ?? `key-${new Date(now).toISOString().slice(0, 10)}-${await d.keys.countActive(orgId, now) + 1}`).trim();
    let workspaceId: string;
    if (input.workspaceId === undefined) workspaceId = await d.orgs.defaultWorkspaceId(orgId);
    else if (await d.orgs.hasActiveWorkspace(orgId, input.workspaceId)) workspaceId = input.workspaceId;
    else throw errors.notFound('No such workspace in this organisation');
    const expiresAt = input.expiresDays === undefined ? null : now + input.expiresDays * 86_400_000;
    const created = await d.keys.create({ orgId, workspaceId, name, tier, monthlyBudgetMicros: input.budgetMicros ?? null, expiresAt }, now,
      (facts) => checkNewKey(facts, name, d.maxActiveKeys));
    return { ...created, name, tier, workspaceId, expiresAt };
  }

  /** Changes a key's limits; a trial key's only downwards. The data plane applies them at once. */
  async updateLimits(orgId: string, id: string, patch: LimitsInput): Promise<KeyRecord> {
    const d = this.#d;
    const k = await this.#inOrg(orgId, id);
    if (k.revokedAt !== null) throw errors.notFound('No such active key in this organisation');
    if (k.tier === 'trial') checkTrialPatch(patch.rpmLimit, patch.dailyLimit, patch.monthlyBudgetMicros !== undefined && patch.monthlyBudgetMicros !== null);
    await d.keys.updateLimits(k.id, { ...patch, guardrails: guardrailSetting(patch.guardrails) }, d.clock.now());
    d.keyChanged(k.id);
    const after = (await d.keys.find(k.id))!;
    return { ...after, ...effectiveLimits(after.tier, after.rpmLimit, after.dailyLimit) };
  }

  /** Revokes a key, permanently and at once. */
  async revoke(orgId: string, id: string): Promise<void> {
    const k = await this.#inOrg(orgId, id);
    await this.#d.keys.revoke(k.id, this.#d.clock.now());
    this.#d.keyChanged(k.id);
  }

  /** The org's usable keys (neither revoked nor expired), newest first. */
  async listActive(orgId: string): Promise<KeyRecord[]> {
    return this.#d.keys.listActive(orgId, this.#d.clock.now());
  }

  /** What a key's holder may know: the org balance, the key's requests today and spend this IST month. */
  async account(key: KeyRecord): Promise<KeyAccount> {
    const now = this.#d.clock.now();
    return this.#d.keys.account(key.orgId, key.id, istDay(now), istMonth(now));
  }

  /**
   * A short-lived, inference-only key for an agent, minted with a full-scope key (MCP): in the
   * minting key's workspace and tier, within the org's cap of ephemeral keys.
   */
  async mintEphemeral(by: KeyRecord, input: { hours: number; dailyLimit: number; name?: string }): Promise<NewKeyResult> {
    const now = this.#d.clock.now();
    const name = input.name !== undefined && input.name.trim() !== '' ? input.name.trim().slice(0, 64) : `ephemeral-${istDay(now)}`;
    const expiresAt = now + input.hours * 3_600_000;
    const created = await this.#d.keys.create({
      orgId: by.orgId, workspaceId: by.workspaceId, name, tier: by.tier, scope: 'inference', dailyLimit: input.dailyLimit, expiresAt,
    }, now, (facts) => {
      if (facts.active >= EPHEMERAL_MAX_ACTIVE) throw errors.rule('cap', `An organisation can hold at most ${EPHEMERAL_MAX_ACTIVE} active ephemeral keys`);
    });
    return { ...created, name, tier: by.tier, workspaceId: by.workspaceId, expiresAt };
  }

  async #inOrg(orgId: string, id: string): Promise<KeyRecord> {
    const k = await this.#d.keys.find(id);
    if (!k || k.orgId !== orgId) throw errors.notFound('No such key in this organisation');
    return k;
  }
}
