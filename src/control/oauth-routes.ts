import type { RouteSpec } from '../http/route-spec.js';
import type { ControlDeps } from './control-deps.js';

/** GET /auth/:provider and its callback (owned by the OAuth work; filled in there). */
export function oauthRoutes(_d: ControlDeps): RouteSpec[] {
  return [];
}
