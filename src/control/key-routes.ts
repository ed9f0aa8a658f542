import { Type } from '@sinclair/typebox';
import { inrToMicros, iso, microsToInr } from './team-rules.js';
import { errors } from '../errors/catalog.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { istMonth } from '../lib/ist.js';
import { countActiveKeys, findKeyById, insertKey, revokeKey, updateKeyLimits } from '../store/keys.js';
import { findDefaultWorkspaceId, findOrg, orgIsFunded } from '../store/orgs.js';
import type { ControlDeps } from './control-deps.js';
import { checkNewKey, KEY_NAME_MAX } from './key-rules.js';
import { TRIAL_DAILY, TRIAL_RPM } from '../limits/limits-gate.js';

const Inr = Type.Number({ minimum: 0, maximum: 10_000_000 });
const NullableInt = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()]);

const KeyListItem = Type.Object({
  id: Type.String(),
  prefix: Type.String(),
  name: Type.String(),
  tier: Type.String(),
  scope: Type.String({ description: 'full (made by a person), or inference (an ephemeral key minted through MCP)' }),
  status: Type.String({ description: 'active, revoked or expired' }),
  workspace_id: Type.String(),
  rpm_limit: Type.Union([Type.Integer(), Type.Null()]),
  daily_limit: Type.Union([Type.Integer(), Type.Null()]),
  monthly_budget: Type.Union([Type.Number(), Type.Null()], { description: '₹ per IST month' }),
  spent_month: Type.Number({ description: '₹ spent this IST month' }),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

/**
 * The limits the gateway applies to a key, as GET and PATCH both show them: a trial key's are its
 * own lowered ones under the trial caps (never null, never above them, as the data plane enforces).
 */
function effectiveLimits(tier: string, rpm: number | null, daily: number | null): { rpm_limit: number | null; daily_limit: number | null } {
  if (tier !== 'trial') return { rpm_limit: rpm, daily_limit: daily };
  return { rpm_limit: Math.min(rpm ?? TRIAL_RPM, TRIAL_RPM), daily_limit: Math.min(daily ?? TRIAL_DAILY, TRIAL_DAILY) };
}

/** GET/POST/PATCH/DELETE /me/keys (spec 4.4) with the rules of spec 3 and 7. */
export function keyRoutes(d: ControlDeps): RouteSpec[] {
  const { db } = d;
  const listStmt = db.prepare(`SELECT k.*, COALESCE(s.spent_micros, 0) AS spent FROM api_keys k
    LEFT JOIN monthly_spend s ON s.scope_id = k.id AND s.ist_month = ? WHERE k.org_id = ? ORDER BY k.created_at, k.id`);
  const keyInOrg = (id: string, orgId: string) => {
    const k = findKeyById(db, id);
    if (!k || k.orgId !== orgId) throw errors.notFound('No such key in this organisation');
    return k;
  };
  return [
    route({
      kind: 'json', method: 'get', path: '/me/keys', auth: 'session', response: Type.Object({ data: Type.Array(KeyListItem) }),
      summary: 'The org\'s keys: prefix, name, tier, limits, monthly budget, spend this month, last used',
      handle: (ctx) => {
        const now = d.clock.now();
        const rows = listStmt.all(istMonth(now), ctx.session.orgId) as Record<string, any>[];
        return {
          body: {
            data: rows.map((k) => ({
              id: k.id, prefix: k.prefix, name: k.name, tier: k.tier, scope: k.scope, workspace_id: k.workspace_id,
              status: k.revoked_at !== null ? 'revoked' : k.expires_at !== null && k.expires_at <= now ? 'expired' : 'active',
              ...effectiveLimits(k.tier, k.rpm_limit, k.daily_limit),
              monthly_budget: microsToInr(k.monthly_budget_micros), spent_month: microsToInr(k.spent as number),
              last_used_at: iso(k.last_used_at), expires_at: iso(k.expires_at), created_at: iso(k.created_at)!,
            })),
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/keys', auth: 'session',
      body: Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: KEY_NAME_MAX })),
        budget_inr: Type.Optional(Inr),
        expires_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
        workspace_id: Type.Optional(Type.String()),
      }, { additionalProperties: false }),
      response: Type.Object({
        id: Type.String(), key: Type.String(), prefix: Type.String(), name: Type.String(), tier: Type.String(),
        workspace_id: Type.String(), budget_inr: Type.Union([Type.Number(), Type.Null()]),
        expires_days: Type.Union([Type.Integer(), Type.Null()]), expires_at: Type.Union([Type.String(), Type.Null()]),
      }),
      summary: 'Mint a key; the full key is in this response only',
      handle: (ctx) => {
        const b = ctx.body;
        const orgId = ctx.session.orgId;
        const now = d.clock.now();
        const org = findOrg(db, orgId)!;
        const tier = orgIsFunded(org) ? 'standard' : 'trial';
        const name = (b.name ?? `key-${new Date(now).toISOString().slice(0, 10)}-${countActiveKeys(db, orgId, now) + 1}`).trim();
        if (b.budget_inr !== undefined && tier === 'trial') throw errors.badRequest('Monthly budgets apply to standard keys; trial keys are free');
        let workspaceId = findDefaultWorkspaceId(db, orgId)!;
        if (b.workspace_id !== undefined) {
          const ws = db.prepare('SELECT id FROM workspaces WHERE id = ? AND org_id = ? AND archived_at IS NULL').pluck().get(b.workspace_id, orgId);
          if (!ws) throw errors.notFound('No such workspace in this organisation');
          workspaceId = b.workspace_id;
        }
        const created = db.transaction(() => {
          checkNewKey(db, orgId, name, d.config.orgs.maxActiveKeysPerOrg, now);
          return insertKey(db, {
            orgId, workspaceId, name, tier,
            monthlyBudgetMicros: b.budget_inr === undefined ? null : inrToMicros(b.budget_inr),
            expiresAt: b.expires_days === undefined ? null : now + b.expires_days * 86_400_000,
          }, now);
        }).immediate();
        const expiresAt = b.expires_days === undefined ? null : now + b.expires_days * 86_400_000;
        return {
          status: 201,
          body: {
            id: created.id, key: created.key, prefix: created.prefix, name, tier, workspace_id: workspaceId,
            budget_inr: b.budget_inr ?? null, expires_days: b.expires_days ?? null, expires_at: iso(expiresAt),
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/keys/:id', auth: 'session', role: 'admin',
      body: Type.Object({
        rpm_limit: Type.Optional(NullableInt),
        daily_limit: Type.Optional(NullableInt),
        budget_inr: Type.Optional(Type.Union([Inr, Type.Null()])),
      }, { additionalProperties: false }),
      response: Type.Object({
        id: Type.String(), tier: Type.String(), rpm_limit: Type.Union([Type.Integer(), Type.Null()]),
        daily_limit: Type.Union([Type.Integer(), Type.Null()]), monthly_budget: Type.Union([Type.Number(), Type.Null()]),
      }),
      summary: 'Change a key\'s limits (owner/admin); the data plane applies them at once',
      handle: (ctx) => {
        const b = ctx.body;
        const k = keyInOrg(ctx.params.id, ctx.session.orgId);
        if (k.revokedAt !== null) throw errors.notFound('No such active key in this organisation');
        if (k.tier === 'trial') {
          if ((b.rpm_limit ?? 0) > TRIAL_RPM || (b.daily_limit ?? 0) > TRIAL_DAILY) {
            throw errors.rule('trial_ceiling', `Trial keys are capped at ${TRIAL_RPM} per minute and ${TRIAL_DAILY} per day; add credit for a standard key`);
          }
          if (b.budget_inr !== undefined && b.budget_inr !== null) throw errors.badRequest('Monthly budgets apply to standard keys; trial keys are free');
        }
        updateKeyLimits(db, k.id, {
          rpmLimit: b.rpm_limit, dailyLimit: b.daily_limit,
          monthlyBudgetMicros: b.budget_inr === undefined ? undefined : b.budget_inr === null ? null : inrToMicros(b.budget_inr),
        }, d.clock.now());
        d.notify.keyChanged(k.id);
        const after = findKeyById(db, k.id)!;
        return {
          body: { id: k.id, tier: after.tier, ...effectiveLimits(after.tier, after.rpmLimit, after.dailyLimit), monthly_budget: microsToInr(after.monthlyBudgetMicros) },
        };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/keys/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), revoked: Type.Boolean() }),
      summary: 'Revoke a key (owner/admin); permanent, effective at once',
      handle: (ctx) => {
        const k = keyInOrg(ctx.params.id, ctx.session.orgId);
        revokeKey(db, k.id, d.clock.now());
        d.notify.keyChanged(k.id);
        return { body: { id: k.id, revoked: true } };
      },
    }),
  ];
}
