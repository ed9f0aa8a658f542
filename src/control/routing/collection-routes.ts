import { Type, type Static } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { CollectionVersion } from '../../domain/stores/collection-store.js';
import { iso } from '../../lib/iso-time.js';
import { queryParams } from '../query-params.js';
import { ExpandedRoutes, routesView, StepsField, StepView } from './chain-schemas.js';
import { COLLECTION_NAME_MAX, README_MAX } from './collection-rules.js';
import type { CollectionService, CollectionView, OrgCollectionView } from './collection-service.js';

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
  name: Type.String({ description: `1-${COLLECTION_NAME_MAX} characters` }),
  model: Type.Unknown({ description: 'a catalog model id (400 bad_model)' }),
  steps: StepsField,
  readme_md: Type.Optional(Type.String({ description: `Markdown, at most ${README_MAX} characters (400 bad_readme)` })),
  public: Type.Optional(Type.Boolean({ description: 'listed in GET /v1/collections; default false' })),
}, { additionalProperties: false });
const Edit = Type.Partial(Create, { additionalProperties: false });

const publicItem = (c: CollectionView): Static<typeof PublicItem> => ({
  slug: c.slug, name: c.name, model: c.model, steps: c.steps, routes: routesView(c.routes), readme_md: c.readmeMd,
  version: c.version, stars: c.stars, forked_from: c.forkedFrom, created_at: iso(c.createdAt), updated_at: iso(c.updatedAt),
});
const orgItem = (c: OrgCollectionView): Static<typeof OrgItem> => ({
  ...publicItem(c), id: c.id, public: c.public, starred: c.starred, monitored: c.monitored,
});
const versions = (list: CollectionVersion[]): Static<typeof Versions> => list.map((v) => ({
  version: v.version, name: v.name, model: v.model, steps: v.steps, readme_md: v.readmeMd, created_at: iso(v.createdAt),
}));

/** Collections (spec 4.8): the public registry and the org's own, HTTP to the collection service and back. */
export function collectionRoutes(collections: CollectionService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/v1/collections', auth: 'public',
      response: Type.Object({ data: Type.Array(PublicItem) }),
      summary: 'Public collections registry, most starred first; query model (one model\'s), limit (1-100, default 50)',
      handle: async (ctx) => {
        const q = queryParams(ctx.query, ['model', 'limit']);
        const limit = q.has('limit') ? Number(q.get('limit')) : 50;
        return { body: { data: (await collections.listPublic(q.get('model') ?? null, limit)).map(publicItem) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/v1/collections/:slug', auth: 'public',
      response: Type.Composite([PublicItem, Type.Object({ versions: Versions })]),
      summary: 'One public collection with its version history (404 not_found when private or unknown)',
      handle: async (ctx) => {
        const c = await collections.findPublic(ctx.params.slug);
        return { body: { ...publicItem(c), versions: versions(c.versions) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections/:slug', auth: 'session', response: SeenItem,
      summary: 'One collection as the active org sees it: its own (private too) or a public one, with whether the org starred it and the version history',
      handle: async (ctx) => {
        const c = await collections.findSeen(ctx.session.orgId, ctx.params.slug);
        return {
          body: {
            ...publicItem(c), id: c.own ? c.id : null, public: c.public, starred: c.starred,
            monitored: c.own ? c.monitored : null, versions: versions(c.versions),
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections', auth: 'session', response: Type.Object({ data: Type.Array(OrgItem) }),
      summary: 'The active org\'s collections: private, public and forked',
      handle: async (ctx) => ({ body: { data: (await collections.listOrg(ctx.session.orgId)).map(orgItem) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections', auth: 'session', role: 'admin', body: Create, response: OrgItem,
      summary: 'Create a collection (owner/admin): name, model, steps, readme_md, public; at most orgs.maxCollectionsPerOrg per org (400 cap)',
      handle: async (ctx) => {
        const b = ctx.body;
        const c = await collections.create(ctx.session.orgId, {
          name: b.name, model: b.model, steps: b.steps, readmeMd: b.readme_md ?? '', public: b.public ?? false,
        });
        return { status: 201, body: orgItem(c) };
      },
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/collections/:id', auth: 'session', role: 'admin', body: Edit, response: OrgItem,
      summary: 'Edit a collection (owner/admin): any of name, model, steps, readme_md, public; each edit bumps its version',
      handle: async (ctx) => {
        const b = ctx.body;
        const c = await collections.edit(ctx.session.orgId, ctx.params.id, {
          name: b.name, model: b.model, steps: b.steps, readmeMd: b.readme_md, public: b.public,
        });
        return { body: orgItem(c) };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/collections/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
      summary: 'Delete a collection (owner/admin), with its versions and stars; forks of it are the forkers\' own and stay',
      handle: async (ctx) => {
        await collections.remove(ctx.session.orgId, ctx.params.id);
        return { body: { id: ctx.params.id, deleted: true } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/star/:slug', auth: 'session',
      response: Type.Object({ slug: Type.String(), starred: Type.Boolean(), stars: Type.Integer() }),
      summary: 'Star a public collection for the active org, or take the star back (one star per org)',
      handle: async (ctx) => ({ body: await collections.toggleStar(ctx.session.orgId, ctx.params.slug) }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/fork/:slug', auth: 'session', response: OrgItem,
      summary: 'Fork a public collection into the active org: a private copy at version 1 that names its source (400 cap)',
      handle: async (ctx) => ({ status: 201, body: orgItem(await collections.fork(ctx.session.orgId, ctx.params.slug)) }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/import/:slug', auth: 'session', role: 'admin',
      response: Type.Object({ collection: OrgItem, chain: Type.Object({ model: Type.String(), steps: Type.Array(StepView), routes: ExpandedRoutes }) }),
      summary: 'Apply a collection as the org\'s routing chain for its model (owner/admin), forking it first when it is another org\'s',
      handle: async (ctx) => {
        const { collection, chain } = await collections.importAsChain(ctx.session.orgId, ctx.session.userId, ctx.params.slug);
        return { body: { collection: orgItem(collection), chain: { model: chain.model, steps: chain.steps, routes: routesView(chain.routes) } } };
      },
    }),
  ];
}
