import { Type } from '@sinclair/typebox';
import { errors } from '../errors/catalog.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { istMonth } from '../lib/ist.js';
import {
  archiveWorkspace, findWorkspace, findWorkspaceSpend, insertWorkspace, listWorkspaces, updateWorkspace, workspaceNameTaken,
  type WorkspaceListRow,
} from '../store/workspaces.js';
import type { ControlDeps } from './control-deps.js';
import { cleanName, inrToMicros, iso, microsToInr } from './team-rules.js';

const NAME_MAX = 64;
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

const workspaceItem = (w: WorkspaceListRow) => ({
  id: w.id, name: w.name, default: w.is_default === 1,
  monthly_budget_inr: microsToInr(w.monthly_budget_micros), spent_month_inr: microsToInr(w.spent_micros),
  archived: w.archived_at !== null, archived_at: iso(w.archived_at), created_at: iso(w.created_at)!,
});

/**
 * /me/workspaces (spec 4.11): the active org's workspaces and their monthly ₹ budgets. A budget
 * change reaches the data plane at once (notify.workspaceChanged); archiving revokes the
 * workspace's keys (notify.keyChanged for each).
 */
export function workspaceRoutes(d: ControlDeps): RouteSpec[] {
  const { db } = d;
  const inOrg = (id: string, orgId: string) => {
    const w = findWorkspace(db, id);
    if (!w || w.org_id !== orgId) throw errors.notFound('No such workspace in this organisation');
    return w;
  };
  const withSpend = (id: string) => {
    const w = findWorkspace(db, id)!;
    return workspaceItem({ ...w, spent_micros: findWorkspaceSpend(db, id, istMonth(d.clock.now())) });
  };
  const nameFree = (orgId: string, name: string, exceptId?: string) => {
    if (workspaceNameTaken(db, orgId, name, exceptId)) throw errors.rule('duplicate_workspace', `A workspace named '${name}' already exists in this organisation`);
  };

  return [
    route({
      kind: 'json', method: 'get', path: '/me/workspaces', auth: 'session', response: Type.Object({ data: Type.Array(WorkspaceItem) }),
      summary: 'The active org\'s workspaces (archived ones flagged) with budget and spend this IST month',
      handle: (ctx) => ({ body: { data: listWorkspaces(db, ctx.session.orgId, istMonth(d.clock.now())).map(workspaceItem) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/workspaces', auth: 'session', role: 'admin', response: WorkspaceItem,
      body: Type.Object({
        name: Type.String({ description: `1-${NAME_MAX} characters, unique (ignoring case) among the org's workspaces` }),
        monthly_budget_inr: Type.Optional(Type.Union([Inr, Type.Null()])),
      }, { additionalProperties: false }),
      summary: 'Create a workspace (owner/admin), optionally with a monthly ₹ budget',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        const b = ctx.body;
        const name = cleanName(b.name, NAME_MAX, 'Workspace');
        const budget = b.monthly_budget_inr === undefined || b.monthly_budget_inr === null ? null : inrToMicros(b.monthly_budget_inr);
        const w = db.transaction(() => {
          nameFree(orgId, name);
          return insertWorkspace(db, { orgId, name, monthlyBudgetMicros: budget }, d.clock.now());
        }).immediate();
        return { status: 201, body: workspaceItem({ ...w, spent_micros: 0 }) };
      },
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/workspaces/:id', auth: 'session', role: 'admin', response: WorkspaceItem,
      body: Type.Object({
        name: Type.Optional(Type.String({ description: `1-${NAME_MAX} characters` })),
        monthly_budget_inr: Type.Optional(Type.Union([Inr, Type.Null()], { description: '₹ per IST month; null removes the cap' })),
      }, { additionalProperties: false }),
      summary: 'Rename a workspace or set its monthly ₹ budget (owner/admin); the data plane enforces it at once',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        const b = ctx.body;
        const w = inOrg(ctx.params.id, orgId);
        if (w.archived_at !== null) throw errors.notFound('No such active workspace in this organisation');
        const name = b.name === undefined ? undefined : cleanName(b.name, NAME_MAX, 'Workspace');
        const budget = b.monthly_budget_inr === undefined ? undefined : b.monthly_budget_inr === null ? null : inrToMicros(b.monthly_budget_inr);
        db.transaction(() => {
          if (name !== undefined) nameFree(orgId, name, w.id);
          updateWorkspace(db, w.id, { name, monthlyBudgetMicros: budget }, d.clock.now());
        }).immediate();
        d.notify.workspaceChanged(w.id);
        return { body: withSpend(w.id) };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/workspaces/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), archived: Type.Boolean(), revoked_keys: Type.Integer({ description: 'keys revoked by this call' }) }),
      summary: 'Archive a workspace (owner/admin) and revoke its keys; the default workspace cannot be archived',
      handle: (ctx) => {
        const w = inOrg(ctx.params.id, ctx.session.orgId);
        if (w.is_default === 1) throw errors.badRequest('The default workspace cannot be archived');
        const { revokedKeyIds } = archiveWorkspace(db, w.id, d.clock.now());
        for (const id of revokedKeyIds) d.notify.keyChanged(id);
        d.notify.workspaceChanged(w.id);
        return { body: { id: w.id, archived: true, revoked_keys: revokedKeyIds.length } };
      },
    }),
  ];
}
