import type { ChainStep } from '../domain/chain.js';
import type { Catalog, Route } from './catalog.js';

/**
 * The routes a chain's steps try, in order: each step's model's routes (only the step's provider's
 * when it names one), a route named twice tried once. Configured or not; callers filter. One
 * expansion for the planner, the dashboard's view of a chain or collection, and canaries.
 */
export function chainRoutes(catalog: Catalog, steps: readonly ChainStep[]): { route: Route; model: string }[] {
  const seen = new Set<string>();
  const out: { route: Route; model: string }[] = [];
  for (const s of steps) {
    for (const route of catalog.models.get(s.model)?.routes ?? []) {
      if ((s.provider === null || route.provider.id === s.provider) && !seen.has(route.id)) {
        seen.add(route.id);
        out.push({ route, model: s.model });
      }
    }
  }
  return out;
}
