import type { Catalog } from '../../catalog/catalog.js';
import type { Collection, CollectionFields, CollectionStore, CollectionVersion } from '../../domain/stores/collection-store.js';
import { errors } from '../../errors/catalog.js';
import type { Clock } from '../../lib/clock.js';
import { expandSteps, type ChainRoute } from './chain-rules.js';
import { checkCollectionCap, checkFields, PUBLIC_LIST_MAX, slugCandidate, type CollectionInput } from './collection-rules.js';
import type { ChainView, RoutingService } from './routing-service.js';

export interface CollectionServiceDeps {
  collections: CollectionStore;
  /** Importing a collection saves it as the org's chain through the routing service. */
  routing: RoutingService;
  catalog: Catalog;
  clock: Clock;
  /** Collections an org may keep (config orgs.maxCollectionsPerOrg). */
  maxPerOrg: number;
}

/** A collection with the routes its steps expand to now. */
export interface CollectionView extends Collection {
  routes: ChainRoute[];
}

/** A collection as an org sees it: whether it starred it. */
export interface OrgCollectionView extends CollectionView {
  starred: boolean;
}

/** A collection the org looked up by slug: its own or a public one, with its history. */
export interface SeenCollection extends OrgCollectionView {
  own: boolean;
  versions: CollectionVersion[];
}

/**
 * Collections (spec 4.8): named, versioned chains an org keeps, may publish to the public
 * registry, star (one star per org), fork into its own, and import as its routing chain. Slugs
 * are global and permanent; every edit is kept as a version.
 */
export class CollectionService {
  readonly #d: CollectionServiceDeps;

  constructor(deps: CollectionServiceDeps) {
    this.#d = deps;
  }

  /** Public collections, most starred first; 400 for a limit outside 1-100. */
  async listPublic(model: string | null, limit: number): Promise<CollectionView[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > PUBLIC_LIST_MAX) throw errors.badRequest(`'limit' must be an integer from 1 to ${PUBLIC_LIST_MAX}`);
    return (await this.#d.collections.listPublic(model, limit)).map((c) => this.#view(c));
  }

  /** One public collection with its history (404 when private or unknown). */
  async findPublic(slug: string): Promise<CollectionView & { versions: CollectionVersion[] }> {
    const c = await this.#visible(slug, null);
    return { ...this.#view(c), versions: await this.#d.collections.versions(c.id) };
  }

  /** A collection the org may see by slug (its own, private too, or a public one), with its history. */
  async findSeen(orgId: string, slug: string): Promise<SeenCollection> {
    const c = await this.#visible(slug, orgId);
    return {
      ...await this.#orgView(c, orgId), own: c.orgId === orgId, versions: await this.#d.collections.versions(c.id),
    };
  }

  /** The org's collections: private, public and forked. */
  async listOrg(orgId: string): Promise<OrgCollectionView[]> {
    const starred = await this.#d.collections.starredBy(orgId);
    return (await this.#d.collections.listByOrg(orgId)).map((c) => ({ ...this.#view(c), starred: starred.has(c.id) }));
  }

  /** A new collection at version 1, within the org's cap. */
  async create(orgId: string, input: CollectionInput): Promise<OrgCollectionView> {
    const c = await this.#insert(orgId, checkFields(this.#d.catalog, input), null);
    return { ...this.#view(c), starred: false };
  }

  /** Changes any of the fields; each edit bumps the version. */
  async edit(orgId: string, id: string, patch: Partial<CollectionInput>): Promise<OrgCollectionView> {
    const d = this.#d;
    if (Object.values(patch).every((v) => v === undefined)) {
      throw errors.badRequest('Nothing to change: send name, model, steps, readme_md or public');
    }
    const updated = await d.collections.update(id, d.clock.now(), (c) => {
      if (c.orgId !== orgId) throw notInOrg();
      return checkFields(d.catalog, {
        name: patch.name ?? c.name, model: patch.model ?? c.model, steps: patch.steps ?? c.steps, readmeMd: patch.readmeMd ?? c.readmeMd,
        public: patch.public ?? c.public,
      });
    });
    if (!updated) throw notInOrg();
    return this.#orgView(updated, orgId);
  }

  /** Deletes the org's collection with its versions and stars; forks of it are the forkers' own and stay. */
  async remove(orgId: string, id: string): Promise<void> {
    if (!await this.#d.collections.delete(orgId, id)) throw notInOrg();
  }

  /** Stars a collection the org may see, or takes the star back. */
  async toggleStar(orgId: string, slug: string): Promise<{ slug: string; starred: boolean; stars: number }> {
    const c = await this.#visible(slug, orgId);
    return { slug: c.slug, ...await this.#d.collections.toggleStar(c.id, orgId, this.#d.clock.now()) };
  }

  /** A private copy at version 1 in the org, naming its source (within the org's cap). */
  async fork(orgId: string, slug: string): Promise<OrgCollectionView> {
    const c = await this.#fork(await this.#visible(slug, orgId), orgId);
    return { ...this.#view(c), starred: false };
  }

  /** Applies a collection as the org's routing chain for its model, forking it first when it is another org's. */
  async importAsChain(orgId: string, userId: string, slug: string): Promise<{ collection: OrgCollectionView; chain: ChainView }> {
    const source = await this.#visible(slug, orgId);
    const own = source.orgId === orgId ? source : await this.#fork(source, orgId);
    // The catalog may have changed since the collection was saved: the routing service checks its steps again.
    const chain = await this.#d.routing.save(orgId, userId, own.model, own.steps);
    return { collection: await this.#orgView(own, orgId), chain };
  }

  #insert(orgId: string, fields: CollectionFields, forkedFrom: string | null): Promise<Collection> {
    const d = this.#d;
    return d.collections.create({ orgId, fields, forkedFrom, slug: () => slugCandidate(fields.name) }, d.clock.now(),
      (facts) => checkCollectionCap(facts.count, d.maxPerOrg));
  }

  /** A fork copies the source's fields as they are: they were checked when it was saved. */
  #fork(source: Collection, orgId: string): Promise<Collection> {
    return this.#insert(orgId, { name: source.name, model: source.model, steps: source.steps, readmeMd: source.readmeMd, public: false }, source.slug);
  }

  /** A collection the org may see by slug: its own, or a public one. */
  async #visible(slug: string, orgId: string | null): Promise<Collection> {
    const c = await this.#d.collections.findBySlug(slug);
    if (!c || (!c.public && c.orgId !== orgId)) throw errors.notFound(`No public collection '${slug}'`);
    return c;
  }

  #view(c: Collection): CollectionView {
    return { ...c, routes: expandSteps(this.#d.catalog, c.steps) };
  }

  async #orgView(c: Collection, orgId: string): Promise<OrgCollectionView> {
    return { ...this.#view(c), starred: (await this.#d.collections.starredBy(orgId)).has(c.id) };
  }
}

const notInOrg = () => errors.notFound('No such collection in this organisation');
