import type { Catalog } from '../../catalog/catalog.js';
import { errors } from '../../errors/catalog.js';
import type { RoutingChainStore, SavedChain } from '../../domain/stores/routing-chain-store.js';
import type { Clock } from '../../lib/clock.js';
import type { DataplaneNotifier } from '../control-deps.js';
import { catalogModel, checkSteps, expandSteps, type ChainRoute } from './chain-rules.js';

export interface RoutingServiceDeps {
  chains: RoutingChainStore;
  catalog: Catalog;
  clock: Clock;
  /** Tells the data plane that an org's chain for a model was saved or removed. */
  chainChanged: DataplaneNotifier['chainChanged'];
}

/** A saved chain with the routes its steps expand to now. */
export interface ChainView extends SavedChain {
  routes: ChainRoute[];
}

/**
 * An org's saved fallback chain per model (spec 4.7). A request for that model, with no
 * `optimize` or `provider` of its own, tries the chain's routes in order instead of the
 * catalog's; saved and removed chains reach the data plane at once.
 */
export class RoutingService {
  readonly #d: RoutingServiceDeps;

  constructor(deps: RoutingServiceDeps) {
    this.#d = deps;
  }

  /** At start: every org's saved chains to the data plane. */
  async publishAll(): Promise<void> {
    for (const c of await this.#d.chains.all()) this.#d.chainChanged(c.orgId, c.model, c.steps);
  }

  /** Another instance changed the org's chain for `model`: this one's data plane takes it as saved (or its removal). */
  async republish(orgId: string, model: string): Promise<void> {
    const c = await this.#d.chains.find(orgId, model);
    this.#d.chainChanged(orgId, model, c ? c.steps : null);
  }

  async list(orgId: string): Promise<ChainView[]> {
    return (await this.#d.chains.list(orgId)).map((c) => this.#view(c));
  }

  /** The org's chain for a catalog model (400 bad_model), 404 when it has none. */
  async find(orgId: string, model: string): Promise<ChainView> {
    catalogModel(this.#d.catalog, model);
    const c = await this.#d.chains.find(orgId, model);
    if (!c) throw errors.notFound(`No saved chain for '${model}'; requests for it use the catalog's routes`);
    return this.#view(c);
  }

  /** Saves or replaces the chain for a catalog model, its steps checked against the catalog as it is now (400 bad_model, bad_steps). */
  async save(orgId: string, userId: string, model: string, steps: unknown): Promise<ChainView> {
    const d = this.#d;
    const checked = checkSteps(d.catalog, catalogModel(d.catalog, model), steps);
    const c = await d.chains.save(orgId, model, checked, userId, d.clock.now());
    d.chainChanged(orgId, model, checked);
    return this.#view(c);
  }

  /** Removes a chain: requests for the model use the catalog's routes again. */
  async remove(orgId: string, model: string): Promise<void> {
    catalogModel(this.#d.catalog, model);
    if (!await this.#d.chains.delete(orgId, model)) throw errors.notFound(`No saved chain for '${model}'`);
    this.#d.chainChanged(orgId, model, null);
  }

  #view(c: SavedChain): ChainView {
    return { ...c, routes: expandSteps(this.#d.catalog, c.steps) };
  }
}
