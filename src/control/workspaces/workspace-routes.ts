import { Type } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { WorkspaceWithSpend } from '../../domain/stores/workspace-store.js';
import { iso } from '../../lib/iso-time.js';
import { inrToMicros, microsToInr } from '../../lib/money.js';
import { WORKSPACE_NAME_MAX as NAME_MAX } from './workspace-rules.js';
import type { WorkspaceService } from './workspace-service.js';

const Inr = Type.Number({ minimum: 0, maximum: 10_000_000, description: '₹ per IST month' });

const WorkspaceItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  default: Type.Boolean(),
  monthly_budget_inr: Type.Union([Type.Number(), Type.Null()], { description: '₹ per IST month; null: no cap' }),
  spent_month_inr: Type.Number({ description: '₹ spent this IST month by the workspace\'s keys' }),
  archived: Type.Boolean(),
  archived_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

const workspaceItem = (w: WorkspaceWithSpend) => ({
  id: w.id, name: w.name, default: w.isDefault,
  monthly_budget_inr: microsToInr(w.monthlyBudgetMicros), spent_month_inr: microsToInr(w.spentMonthMicros),
  archived: w.archivedAt !== null, archived_at: iso(w.archivedAt), created_at: iso(w.createdAt)!,
});

/** ₹ on the wire to micros: null clears, undefined leaves. */
const budgetMicros = (inr: number | null | undefined) => (inr === undefined || inr === null ? inr : inrToMicros(inr));

/** /me/workspaces (spec 4.11): the active org's workspaces and their monthly ₹ budgets, HTTP to the workspace service and back. */
export function workspaceRoutes(workspaces: WorkspaceService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/me/workspaces', auth: 'session', response: Type.Object({ data: Type.Array(WorkspaceItem) }),
      summary: 'The active org\'s workspaces (archived ones flagged) with budget and spend this IST month',
      handle: async (ctx) => ({ body: { data: (await workspaces.list(ctx.session.orgId)).map(workspaceItem) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/workspaces', auth: 'session', role: 'admin', response: WorkspaceItem,
      body: Type.Object({
        name: Type.String({ description: `1-${NAME_MAX} characters, unique (ignoring case) among the org's workspaces` }),
        monthly_budget_inr: Type.Optional(Type.Union([Inr, Type.Null()])),
      }, { additionalProperties: false }),
      summary: 'Create a workspace (owner/admin), optionally with a monthly ₹ budget',
      handle: async (ctx) => {
        const b = ctx.body;
        const w = await workspaces.create(ctx.session.orgId, { name: b.name, monthlyBudgetMicros: budgetMicros(b.monthly_budget_inr) });
        return { status: 201, body: workspaceItem(w) };
      },
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/workspaces/:id', auth: 'session', role: 'admin', response: WorkspaceItem,
      body: Type.Object({
        name: Type.Optional(Type.String({ description: `1-${NAME_MAX} characters` })),
        monthly_budget_inr: Type.Optional(Type.Union([Inr, Type.Null()], { description: '₹ per IST month; null removes the cap' })),
      }, { additionalProperties: false }),
      summary: 'Rename a workspace or set its monthly ₹ budget (owner/admin); the data plane enforces it at once',
      handle: async (ctx) => {
        const b = ctx.body;
        const w = await workspaces.update(ctx.session.orgId, ctx.params.id, { name: b.name, monthlyBudgetMicros: budgetMicros(b.monthly_budget_inr) });
        return { body: workspaceItem(w) };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/workspaces/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), archived: Type.Boolean(), revoked_keys: Type.Integer({ description: 'keys revoked by this call' }) }),
      summary: 'Archive a workspace (owner/admin) and revoke its keys; the default workspace cannot be archived',
      handle: async (ctx) => {
        const { revokedKeys } = await workspaces.archive(ctx.session.orgId, ctx.params.id);
        return { body: { id: ctx.params.id, archived: true, revoked_keys: revokedKeys } };
      },
    }),
  ];
}
