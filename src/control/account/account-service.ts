import { errors } from '../../errors/catalog.js';
import { guardrailSetting } from '../guardrail-setting.js';
import { cleanName } from '../../domain/display-name.js';
import { orgIsFunded } from '../../domain/org-funding.js';
import type { Role, Session } from '../../domain/session.js';
import type { Org, OrgCachePatch, OrgStore } from '../../domain/stores/org-store.js';
import type { SessionStore } from '../../domain/stores/session-store.js';
import type { User, UserStore } from '../../domain/stores/user-store.js';
import type { Clock } from '../../lib/clock.js';

/** Longest display name of a person or an org, in characters. */
export const DISPLAY_NAME_MAX = 80;

export interface AccountServiceDeps {
  users: UserStore;
  orgs: OrgStore;
  sessions: SessionStore;
  clock: Clock;
  /** Tells the data plane (and other instances) a key's cached record is stale: an org's guardrails and cache settings are in each key's. */
  keyChanged?: (keyId: string) => void;
}

/** The signed-in user and the org they act in, as GET /me shows them. */
export interface Me {
  user: User;
  role: Role;
  /** True until the one-time signup survey is answered. */
  attributionPending: boolean;
  org: Org;
  /** A team org's email domain (its members'), taken from the user's; null for a personal org. */
  domain: string | null;
  /** The tier new keys get: standard once the org is funded. */
  tier: 'trial' | 'standard';
}

/** The signup survey's answers, stored as given. */
export interface SurveyAnswers {
  source: string;
  details?: string;
}

/** The caller's account (spec 4.3): who they are, their profile, the active org's name, the signup survey, signing out. */
export class AccountService {
  readonly #d: AccountServiceDeps;

  constructor(deps: AccountServiceDeps) {
    this.#d = deps;
  }

  async me(s: Pick<Session, 'userId' | 'orgId' | 'role'>): Promise<Me> {
    const [user, org, attributionPending] = await Promise.all([
      this.#d.users.find(s.userId), this.#d.orgs.find(s.orgId), this.#d.users.attributionPending(s.userId),
    ]);
    if (!user || !org) throw errors.notFound('No such account');
    return {
      user, role: s.role, attributionPending, org,
      domain: org.personal ? null : user.email.split('@')[1] ?? null,
      tier: orgIsFunded(org) ? 'standard' : 'trial',
    };
  }

  /** Sets or clears the display name, or removes the avatar. */
  async updateProfile(s: Pick<Session, 'userId' | 'orgId' | 'role'>, input: { name?: string | null; removeAvatar?: boolean }): Promise<Me> {
    const name = typeof input.name === 'string' ? cleanName(input.name, DISPLAY_NAME_MAX, 'Display') : input.name;
    await this.#d.users.update(s.userId, { name, avatarUrl: input.removeAvatar ? null : undefined });
    return this.me(s);
  }

  /** Renames the active org (the route lets only its owners). */
  async renameOrg(s: Pick<Session, 'userId' | 'orgId' | 'role'>, rawName: string): Promise<Me> {
    await this.#d.orgs.rename(s.orgId, cleanName(rawName, DISPLAY_NAME_MAX, 'Org'));
    return this.me(s);
  }

  /**
   * Sets the active org's guardrail policy (docs/guardrails.md), or clears it with null; keys
   * without their own policy follow it from their next request (the route lets only owners).
   */
  async setOrgGuardrails(s: Pick<Session, 'userId' | 'orgId' | 'role'>, given: string | null): Promise<Me> {
    const ids = await this.#d.orgs.setGuardrails(s.orgId, guardrailSetting(given) ?? null, this.#d.clock.now());
    for (const id of ids) this.#d.keyChanged?.(id);
    return this.me(s);
  }

  /**
   * Changes the active org's cache settings (docs/cache.md; a member absent is left, null clears);
   * keys without their own follow them from their next request (the route lets only owners).
   */
  async setOrgCacheSettings(s: Pick<Session, 'userId' | 'orgId' | 'role'>, patch: OrgCachePatch): Promise<Me> {
    const ids = await this.#d.orgs.setCacheSettings(s.orgId, patch, this.#d.clock.now());
    for (const id of ids) this.#d.keyChanged?.(id);
    return this.me(s);
  }

  /** Saves the one-time signup survey; a second answer is refused. */
  async answerSurvey(userId: string, answers: SurveyAnswers): Promise<void> {
    if (!await this.#d.users.saveAttribution(userId, JSON.stringify(answers), this.#d.clock.now())) {
      throw errors.rule('already_answered', 'The signup survey has already been answered');
    }
  }

  /** Ends the session a cookie holds, if any. */
  async signOut(token: string | null): Promise<void> {
    if (token) await this.#d.sessions.end(token);
  }
}
