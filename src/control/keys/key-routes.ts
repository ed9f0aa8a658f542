import { Type } from '@sinclair/typebox';
import { route, type RouteSpec } from '../../domain/route-spec.js';
import { inrToMicros, microsToInr } from '../../lib/money.js';
import { iso } from '../../lib/iso-time.js';
import { PromptCacheSetting, ResponseCacheSetting } from '../cache-setting-schema.js';
import { KEY_NAME_MAX } from './key-rules.js';
import type { KeyService } from './key-service.js';

const Inr = Type.Number({ minimum: 0, maximum: 10_000_000 });
const NullableInt = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()]);

const GuardrailsValue = Type.Union([Type.String(), Type.Null()], {
  description: "The key's own guardrail policy (docs/guardrails.md), e.g. 'redact=india;block=secret;outputs'; null: the org's applies",
});

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
  guardrails: GuardrailsValue,
  response_cache: ResponseCacheSetting,
  prompt_cache: PromptCacheSetting,
  spent_month: Type.Number({ description: '₹ spent this IST month' }),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

/** GET/POST/PATCH/DELETE /me/keys (spec 4.4): HTTP to the key service and back. */
export function keyRoutes(keys: KeyService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/me/keys', auth: 'session', response: Type.Object({ data: Type.Array(KeyListItem) }),
      summary: 'The org\'s keys: prefix, name, tier, limits, monthly budget, spend this month, last used',
      handle: async (ctx) => ({
        body: {
          data: (await keys.list(ctx.session.orgId)).map((k) => ({
            id: k.id, prefix: k.prefix, name: k.name, tier: k.tier, scope: k.scope, workspace_id: k.workspaceId, status: k.status,
            rpm_limit: k.rpmLimit, daily_limit: k.dailyLimit, guardrails: k.guardrails ?? null,
            response_cache: k.responseCache ?? null, prompt_cache: k.promptCache ?? null,
            monthly_budget: microsToInr(k.monthlyBudgetMicros), spent_month: microsToInr(k.spentMonthMicros),
            last_used_at: iso(k.lastUsedAt), expires_at: iso(k.expiresAt), created_at: iso(k.createdAt),
          })),
        },
      }),
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
      handle: async (ctx) => {
        const b = ctx.body;
        const k = await keys.create(ctx.session.orgId, {
          name: b.name, budgetMicros: b.budget_inr === undefined ? undefined : inrToMicros(b.budget_inr), expiresDays: b.expires_days,
          workspaceId: b.workspace_id,
        });
        return {
          status: 201,
          body: {
            id: k.id, key: k.key, prefix: k.prefix, name: k.name, tier: k.tier, workspace_id: k.workspaceId,
            budget_inr: b.budget_inr ?? null, expires_days: b.expires_days ?? null, expires_at: iso(k.expiresAt),
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
        guardrails: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()])),
        response_cache: Type.Optional(ResponseCacheSetting),
        prompt_cache: Type.Optional(PromptCacheSetting),
      }, { additionalProperties: false }),
      response: Type.Object({
        id: Type.String(), tier: Type.String(), rpm_limit: Type.Union([Type.Integer(), Type.Null()]),
        daily_limit: Type.Union([Type.Integer(), Type.Null()]), monthly_budget: Type.Union([Type.Number(), Type.Null()]),
        guardrails: GuardrailsValue, response_cache: ResponseCacheSetting, prompt_cache: PromptCacheSetting,
      }),
      summary: 'Change a key\'s limits, guardrail policy and cache settings (owner/admin); the data plane applies them at once',
      handle: async (ctx) => {
        const b = ctx.body;
        const k = await keys.updateLimits(ctx.session.orgId, ctx.params.id, {
          rpmLimit: b.rpm_limit, dailyLimit: b.daily_limit,
          monthlyBudgetMicros: b.budget_inr === undefined ? undefined : b.budget_inr === null ? null : inrToMicros(b.budget_inr),
          guardrails: b.guardrails, responseCache: b.response_cache, promptCache: b.prompt_cache,
        });
        return { body: { id: k.id, tier: k.tier, rpm_limit: k.rpmLimit, daily_limit: k.dailyLimit, monthly_budget: microsToInr(k.monthlyBudgetMicros),
          guardrails: k.guardrails ?? null, response_cache: k.responseCache ?? null, prompt_cache: k.promptCache ?? null } };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/keys/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), revoked: Type.Boolean() }),
      summary: 'Revoke a key (owner/admin); permanent, effective at once',
      handle: async (ctx) => {
        await keys.revoke(ctx.session.orgId, ctx.params.id);
        return { body: { id: ctx.params.id, revoked: true } };
      },
    }),
  ];
}
