import type { RouteSpec } from '../http/route-spec.js';
import type { ControlDeps } from './control-deps.js';

/** /me/orgs, /me/members, /me/invitations, /me/workspaces (owned by the teams work; filled in there). */
export function teamRoutes(_d: ControlDeps): RouteSpec[] {
  return [];
}
