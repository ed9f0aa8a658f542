import type { Catalog, Model } from '../../catalog/catalog.js';
import { chainRoutes } from '../../catalog/chain-routes.js';
import type { ChainStep } from '../../domain/chain.js';
import { errors } from '../../errors/catalog.js';

/** Spec 8: chains and collections have 1 to 10 steps. */
export const MAX_STEPS = 10;

/** One route a chain's steps expand to, as the dashboard shows it. */
export interface ChainRoute {
  provider: string;
  model: string;
  upstreamModel: string;
  /** Usable on this gateway now; routes that are not are skipped. */
  configured: boolean;
}

/** The catalog model a chain or collection is for; 400 bad_model when it is not a catalog id. */
export function catalogModel(catalog: Catalog, id: unknown): Model {
  const m = typeof id === 'string' ? catalog.models.get(id) : undefined;
  if (!m) throw errors.rule('bad_model', `'${String(id)}' is not a catalog model id`);
  return m;
}

/**
 * The steps as saved: 1-10, each naming a catalog model of the chain's kind and, if any, a
 * provider that serves it, none repeating another. Anything else is 400 bad_steps naming the step.
 */
export function checkSteps(catalog: Catalog, model: Model, given: unknown): ChainStep[] {
  if (!Array.isArray(given) || given.length < 1 || given.length > MAX_STEPS) {
    throw errors.rule('bad_steps', `'steps' must be an array of 1 to ${MAX_STEPS} steps`);
  }
  const seen = new Map<string, number>();
  return given.map((s: unknown, i) => {
    const bad = (why: string) => errors.rule('bad_steps', `Invalid 'steps.${i}': ${why}`);
    if (typeof s !== 'object' || s === null || Array.isArray(s)) throw bad('expected an object with model and/or provider');
    const step = s as Record<string, unknown>;
    const extra = Object.keys(step).find((k) => k !== 'model' && k !== 'provider');
    if (extra !== undefined) throw bad(`unknown field '${extra}'`);
    if (step.model !== undefined && typeof step.model !== 'string') throw bad('model must be a string');
    if (step.provider !== undefined && step.provider !== null && typeof step.provider !== 'string') throw bad('provider must be a string');
    const stepModel = catalog.models.get((step.model as string | undefined) ?? model.id);
    if (!stepModel) throw bad(`no model '${String(step.model)}' in the catalog`);
    if (stepModel.kind !== model.kind) throw bad(`'${stepModel.id}' is a ${stepModel.kind} model and '${model.id}' a ${model.kind} model`);
    const provider = (step.provider as string | null | undefined) ?? null;
    if (provider !== null && !stepModel.routes.some((r) => r.provider.id === provider)) throw bad(`'${provider}' does not serve '${stepModel.id}'`);
    const key = `${stepModel.id}\u0000${provider}`;
    if (seen.has(key)) throw bad(`it repeats step ${seen.get(key)}`);
    seen.set(key, i);
    return { model: stepModel.id, provider };
  });
}

/** The routes steps try, in order, as the data plane expands them (configured or not, for the dashboard). */
export function expandSteps(catalog: Catalog, steps: readonly ChainStep[]): ChainRoute[] {
  return chainRoutes(catalog, steps).map(({ route: r, model }) =>
    ({ provider: r.provider.id, model, upstreamModel: r.upstreamModel, configured: r.provider.configured }));
}
