import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { Catalog } from '../catalog/catalog.js';
import type { ChainStep } from '../domain/chain.js';
import { type RequestContext, type RouteSpec, route } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import type { Db } from '../store/database.js';
import {
  collectionVersions, countOrgCollections, deleteCollection, findCollection, findCollectionBySlug, insertCollection, listOrgCollections,
  listPublicCollections, slugTaken, starredBy, toggleStar, updateCollection, type CollectionFields, type CollectionRow,
} from '../store/collections.js';
import { saveChain } from '../store/routing-chains.js';
import { catalogModel, checkSteps, expandSteps, ExpandedRoutes, StepsField, StepView } from './chain-steps.js';
import type { ControlDeps } from './control-deps.js';
import { queryParams } from './query-params.js';
import { cleanName, iso } from './team-rules.js';

const NAME_MAX = 64;
const README_MAX = 20_000;
const PUBLIC_LIST_MAX = 100;
// Markdown keeps tabs and line breaks; other control characters have no business in a README.
const README_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const PublicItem = Type.Object({
  slug: Type.String({ description: 'global and permanent; renames keep it' }),
  name: Type.String(),
  model: Type.String(),
  steps: Type.Array(StepView),
  routes: ExpandedRoutes,
  readme_md: Type.String(),
  version: Type.Integer({ description: 'starts at 1; every edit adds one' }),
  stars: Type.Integer({ description: 'orgs that starred it (one star per org)' }),
  forked_from: Type.Union([Type.String(), Type.Null()], { description: 'slug of the collection it was forked from' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
const OrgItem = Type.Composite([PublicItem, Type.Object({
  id: Type.String(),
  public: Type.Boolean(),
  starred: Type.Boolean({ description: 'starred by the active org' }),
  monitored: Type.Boolean({ description: 'canaried on a schedule (POST /me/collections/:slug/monitor)' }),
})]);
const Version = Type.Object({
  version: Type.Integer(), name: Type.String(), model: Type.String(), steps: Type.Array(StepView), readme_md: Type.String(), created_at: Type.String(),
});
const Versions = Type.Array(Version, { description: 'newest first' });
const SeenItem = Type.Composite([PublicItem, Type.Object({
  id: Type.Union([Type.String(), Type.Null()], { description: 'the active org\'s own collection: its id; another org\'s: null' }),
  public: Type.Boolean(),
  starred: Type.Boolean({ description: 'starred by the active org' }),
  monitored: Type.Union([Type.Boolean(), Type.Null()], { description: 'null for another org\'s collection' }),
  versions: Versions,
})]);

const Create = Type.Object({
  name: Type.String({ description: `1-${NAME_MAX} characters` }),
  model: Type.Unknown({ description: 'a catalog model id (400 bad_model)' }),
  steps: StepsField,
  readme_md: Type.Optional(Type.String({ description: `Markdown, at most ${README_MAX} characters (400 bad_readme)` })),
  public: Type.Optional(Type.Boolean({ description: 'listed in GET /v1/collections; default false' })),
}, { additionalProperties: false });
const Edit = Type.Partial(Create, { additionalProperties: false });

export interface CollectionRouteDeps extends ControlDeps {
  catalog: Catalog;
}

/**
 * Collections (spec 4.8): named, versioned chains an org keeps, may publish to the public
 * registry (GET /v1/collections), star (one star per org), fork into its own, and import as its
 * routing chain. Slugs are global and permanent; every edit is kept as a version.
 */
export function collectionRoutes(d: CollectionRouteDeps): RouteSpec[] {
  const { db, catalog } = d;
  const cap = d.config.orgs.maxCollectionsPerOrg;

  const publicItem = (c: CollectionRow): Static<typeof PublicItem> => ({
    slug: c.slug, name: c.name, model: c.model, steps: c.steps, routes: expandSteps(catalog, c.steps), readme_md: c.readme_md,
    version: c.version, stars: c.stars, forked_from: c.forked_from, created_at: iso(c.created_at)!, updated_at: iso(c.updated_at)!,
  });
  const orgItem = (c: CollectionRow, starred: boolean): Static<typeof OrgItem> => ({
    ...publicItem(c), id: c.id, public: c.public, starred, monitored: c.monitored,
  });
  const inOrg = (id: string, orgId: string): CollectionRow => {
    const c = findCollection(db, id);
    if (!c || c.org_id !== orgId) throw errors.notFound('No such collection in this organisation');
    return c;
  };
  /** A collection the org may see by slug: its own, or a public one. */
  const visible = (slug: string, orgId: string | null): CollectionRow => {
    const c = findCollectionBySlug(db, slug);
    if (!c || (!c.public && c.org_id !== orgId)) throw errors.notFound(`No public collection '${slug}'`);
    return c;
  };
  const versionsOf = (c: CollectionRow) => collectionVersions(db, c.id).map((v) => ({ ...v, created_at: iso(v.created_at)! }));
  const withinCap = (orgId: string) => {
    if (countOrgCollections(db, orgId) >= cap) throw errors.rule('cap', `An organisation keeps at most ${cap} collections`);
  };
  const create = (orgId: string, f: CollectionFields, forkedFrom: string | null): CollectionRow => db.transaction(() => {
    withinCap(orgId);
    return findCollection(db, insertCollection(db, orgId, newSlug(db, f.name), f, forkedFrom, d.clock.now()))!;
  }).immediate();
  const fork = (source: CollectionRow, orgId: string): CollectionRow =>
    create(orgId, { name: source.name, model: source.model, steps: source.steps, readme_md: source.readme_md, public: false }, source.slug);

  return [
    route({
      kind: 'json', method: 'get', path: '/v1/collections', auth: 'public',
      response: Type.Object({ data: Type.Array(PublicItem) }),
      summary: 'Public collections registry, most starred first; query model (one model\'s), limit (1-100, default 50)',
      handle: (ctx) => {
        const q = queryParams(ctx.query, ['model', 'limit']);
        const limit = q.has('limit') ? Number(q.get('limit')) : 50;
        if (!Number.isInteger(limit) || limit < 1 || limit > PUBLIC_LIST_MAX) throw errors.badRequest(`'limit' must be an integer from 1 to ${PUBLIC_LIST_MAX}`);
        return { body: { data: listPublicCollections(db, q.get('model') ?? null, limit).map(publicItem) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/v1/collections/:slug', auth: 'public',
      response: Type.Composite([PublicItem, Type.Object({ versions: Versions })]),
      summary: 'One public collection with its version history (404 not_found when private or unknown)',
      handle: (ctx) => {
        const c = visible(ctx.params.slug, null);
        return { body: { ...publicItem(c), versions: versionsOf(c) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections/:slug', auth: 'session', response: SeenItem,
      summary: 'One collection as the active org sees it: its own (private too) or a public one, with whether the org starred it and the version history',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        const c = visible(ctx.params.slug, orgId);
        const own = c.org_id === orgId;
        return {
          body: {
            ...publicItem(c), id: own ? c.id : null, public: c.public, starred: starredBy(db, orgId).has(c.id),
            monitored: own ? c.monitored : null, versions: versionsOf(c),
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections', auth: 'session', response: Type.Object({ data: Type.Array(OrgItem) }),
      summary: 'The active org\'s collections: private, public and forked',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        const starred = starredBy(db, orgId);
        return { body: { data: listOrgCollections(db, orgId).map((c) => orgItem(c, starred.has(c.id))) } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections', auth: 'session', role: 'admin', body: Create, response: OrgItem,
      summary: 'Create a collection (owner/admin): name, model, steps, readme_md, public; at most orgs.maxCollectionsPerOrg per org (400 cap)',
      handle: (ctx) => {
        const b = ctx.body;
        const f = fields(catalog, { name: b.name, model: b.model, steps: b.steps, readme_md: b.readme_md ?? '', public: b.public ?? false });
        return { status: 201, body: orgItem(create(ctx.session.orgId, f, null), false) };
      },
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/collections/:id', auth: 'session', role: 'admin', body: Edit, response: OrgItem,
      summary: 'Edit a collection (owner/admin): any of name, model, steps, readme_md, public; each edit bumps its version',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        const b = ctx.body;
        if (Object.keys(b).length === 0) throw errors.badRequest('Nothing to change: send name, model, steps, readme_md or public');
        const updated = db.transaction(() => {
          const c = inOrg(ctx.params.id, orgId);
          const f = fields(catalog, {
            name: b.name ?? c.name, model: b.model ?? c.model, steps: b.steps ?? c.steps, readme_md: b.readme_md ?? c.readme_md,
            public: b.public ?? c.public,
          });
          updateCollection(db, c.id, c.version + 1, f, d.clock.now());
          return findCollection(db, c.id)!;
        }).immediate();
        return { body: orgItem(updated, starredBy(db, orgId).has(updated.id)) };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/collections/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
      summary: 'Delete a collection (owner/admin), with its versions and stars; forks of it are the forkers\' own and stay',
      handle: (ctx) => {
        const c = inOrg(ctx.params.id, ctx.session.orgId);
        deleteCollection(db, c.id);
        return { body: { id: c.id, deleted: true } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/star/:slug', auth: 'session',
      response: Type.Object({ slug: Type.String(), starred: Type.Boolean(), stars: Type.Integer() }),
      summary: 'Star a public collection for the active org, or take the star back (one star per org)',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        const c = visible(ctx.params.slug, orgId);
        const starred = toggleStar(db, c.id, orgId, d.clock.now());
        return { body: { slug: c.slug, starred, stars: findCollection(db, c.id)!.stars } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/fork/:slug', auth: 'session', response: OrgItem,
      summary: 'Fork a public collection into the active org: a private copy at version 1 that names its source (400 cap)',
      handle: (ctx) => ({ status: 201, body: orgItem(fork(visible(ctx.params.slug, ctx.session.orgId), ctx.session.orgId), false) }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/import/:slug', auth: 'session', role: 'admin',
      response: Type.Object({ collection: OrgItem, chain: Type.Object({ model: Type.String(), steps: Type.Array(StepView), routes: ExpandedRoutes }) }),
      summary: 'Apply a collection as the org\'s routing chain for its model (owner/admin), forking it first when it is another org\'s',
      handle: (ctx) => importCollection(ctx),
    }),
  ];

  function importCollection(ctx: RequestContext<'session'>) {
    const { orgId, userId } = ctx.session;
    const source = visible(ctx.params.slug, orgId);
    const own = source.org_id === orgId ? source : fork(source, orgId);
    // The catalog may have changed since the collection was saved: its steps are checked again.
    const steps = checkSteps(catalog, catalogModel(catalog, own.model), own.steps);
    saveChain(db, orgId, own.model, steps, userId, d.clock.now());
    d.notify.chainChanged(orgId, own.model, steps);
    return {
      body: {
        collection: orgItem(own, starredBy(db, orgId).has(own.id)),
        chain: { model: own.model, steps, routes: expandSteps(catalog, steps) },
      },
    };
  }
}

/** Checks every field: name (bad_name), model (bad_model), steps (bad_steps), README (bad_readme). */
function fields(catalog: Catalog, f: { name: string; model: unknown; steps: unknown; readme_md: string; public: boolean }): CollectionFields {
  const name = cleanName(f.name, NAME_MAX, 'Collection');
  const model = catalogModel(catalog, f.model);
  const steps: ChainStep[] = checkSteps(catalog, model, f.steps);
  if (f.readme_md.length > README_MAX) throw errors.rule('bad_readme', `readme_md is at most ${README_MAX} characters`);
  if (README_FORBIDDEN.test(f.readme_md)) throw errors.rule('bad_readme', 'readme_md has control characters');
  return { name, model: model.id, steps, readme_md: f.readme_md, public: f.public };
}

/** A readable, unguessable, unused slug: the name's letters and digits, then six random ones. */
function newSlug(db: Db, name: string): string {
  const base = name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'collection';
  for (;;) {
    const slug = `${base}-${randomBytes(4).readUInt32BE(0).toString(36).padStart(6, '0').slice(-6)}`;
    if (!slugTaken(db, slug)) return slug;
  }
}
