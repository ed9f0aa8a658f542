import type { ChainStep } from '../../domain/chain.js';
import type { Collection, CollectionFields, CollectionStore, CollectionVersion } from '../../domain/stores/collection-store.js';
import { newId } from '../../lib/ids.js';
import type { Pg } from './pg-database.js';
import { lockScope, type Tx } from './pg-locks.js';

interface RawRow extends Omit<Collection, 'steps' | 'public' | 'monitored'> {
  steps: string;
  public: number;
  monitored: number;
}

const SELECT = `SELECT c.id, c.org_id AS "orgId", c.slug, c.name, c.model, c.steps, c.readme_md AS "readmeMd", c.public, c.version,
  c.forked_from AS "forkedFrom", c.monitored, c.created_at AS "createdAt", c.updated_at AS "updatedAt",
  (SELECT COUNT(*) FROM collection_stars s WHERE s.collection_id = c.id) AS stars FROM collections c`;

const parse = (r: RawRow): Collection => ({ ...r, steps: JSON.parse(r.steps) as ChainStep[], public: r.public === 1, monitored: r.monitored === 1 });

/**
 * The CollectionStore on PostgreSQL. A new collection is counted against its org's cap under the
 * org's lock; an edit holds its collection's row lock from the read its change is made of to the
 * new version; a star toggle holds the (collection, org) pair's lock, so two toggles star and
 * unstar, as they do in turn on SQLite. Ties in an order are broken by id in byte order
 * (COLLATE "C"), as SQLite compares text, whatever the database's locale.
 */
export function postgresCollectionStore(sql: Pg): CollectionStore {
  const many = async (q: Pg | Tx, where: string, params: (string | number)[]): Promise<Collection[]> =>
    (await q.unsafe<RawRow[]>(`${SELECT} ${where}`, params)).map(parse);
  const one = async (q: Pg | Tx, where: string, params: string[]): Promise<Collection | undefined> => (await many(q, where, params))[0];
  const addVersion = async (tx: Tx, id: string, v: number, f: CollectionFields, now: number): Promise<void> => {
    await tx`INSERT INTO collection_versions (collection_id, version, name, model, steps, readme_md, created_at)
      VALUES (${id}, ${v}, ${f.name}, ${f.model}, ${JSON.stringify(f.steps)}, ${f.readmeMd}, ${now})`;
  };
  return {
    listByOrg: (orgId) => many(sql, 'WHERE c.org_id = $1 ORDER BY c.created_at, c.id COLLATE "C"', [orgId]),
    listPublic: (model, limit) => (model === null
      ? many(sql, 'WHERE c.public = 1 ORDER BY stars DESC, c.updated_at DESC, c.id COLLATE "C" LIMIT $1', [limit])
      : many(sql, 'WHERE c.public = 1 AND c.model = $1 ORDER BY stars DESC, c.updated_at DESC, c.id COLLATE "C" LIMIT $2', [model, limit])),
    find: (id) => one(sql, 'WHERE c.id = $1', [id]),
    findBySlug: (slug) => one(sql, 'WHERE c.slug = $1', [slug]),
    versions: async (id) => (await sql<(Omit<CollectionVersion, 'steps'> & { steps: string })[]>`SELECT version, name, model, steps,
        readme_md AS "readmeMd", created_at AS "createdAt" FROM collection_versions WHERE collection_id = ${id} ORDER BY version DESC`)
      .map((v) => ({ ...v, steps: JSON.parse(v.steps) as ChainStep[] })),
    starredBy: async (orgId) =>
      new Set((await sql<{ id: string }[]>`SELECT collection_id AS id FROM collection_stars WHERE org_id = ${orgId}`).map((r) => r.id)),
    create: (c, now, check) => sql.begin(async (tx) => {
      await lockScope(tx, `org:${c.orgId}`);
      if (check) {
        const [r] = await tx<{ count: number }[]>`SELECT COUNT(*) AS count FROM collections WHERE org_id = ${c.orgId}`;
        check({ count: r!.count });
      }
      const id = newId('col');
      const f = c.fields;
      // Slugs are global: another org's insert may take one between a look and an insert, so the insert itself looks.
      for (;;) {
        const inserted = await tx`INSERT INTO collections
            (id, org_id, slug, name, model, steps, readme_md, public, version, forked_from, created_at, updated_at)
          VALUES (${id}, ${c.orgId}, ${c.slug()}, ${f.name}, ${f.model}, ${JSON.stringify(f.steps)}, ${f.readmeMd}, ${f.public ? 1 : 0}, 1,
            ${c.forkedFrom}, ${now}, ${now})
          ON CONFLICT (slug) DO NOTHING`;
        if (inserted.count > 0) break;
      }
      await addVersion(tx, id, 1, f, now);
      return (await one(tx, 'WHERE c.id = $1', [id]))!;
    }),
    update: (id, now, change) => sql.begin(async (tx) => {
      if ((await tx`SELECT 1 FROM collections WHERE id = ${id} FOR UPDATE`).length === 0) return undefined;
      const current = (await one(tx, 'WHERE c.id = $1', [id]))!;
      const f = change(current);
      const v = current.version + 1;
      await tx`UPDATE collections SET name = ${f.name}, model = ${f.model}, steps = ${JSON.stringify(f.steps)}, readme_md = ${f.readmeMd},
        public = ${f.public ? 1 : 0}, version = ${v}, updated_at = ${now} WHERE id = ${id}`;
      await addVersion(tx, id, v, f, now);
      return (await one(tx, 'WHERE c.id = $1', [id]))!;
    }),
    delete: async (orgId, id) => (await sql`DELETE FROM collections WHERE id = ${id} AND org_id = ${orgId}`).count > 0,
    toggleStar: (id, orgId, now) => sql.begin(async (tx) => {
      await lockScope(tx, `star:${id}:${orgId}`);
      const starred = (await tx`DELETE FROM collection_stars WHERE collection_id = ${id} AND org_id = ${orgId}`).count === 0;
      if (starred) await tx`INSERT INTO collection_stars (collection_id, org_id, created_at) VALUES (${id}, ${orgId}, ${now})`;
      const [r] = await tx<{ stars: number }[]>`SELECT COUNT(*) AS stars FROM collection_stars WHERE collection_id = ${id}`;
      return { starred, stars: r!.stars };
    }),
  };
}
