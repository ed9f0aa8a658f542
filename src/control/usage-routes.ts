import type { RouteSpec } from '../http/route-spec.js';
import type { ControlDeps } from './control-deps.js';

/** /me/usage, /me/usage/daily, /me/activity, /me/activity/events (owned by the reporting work; filled in there). */
export function usageRoutes(_d: ControlDeps): RouteSpec[] {
  return [];
}
