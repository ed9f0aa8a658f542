import type { ChainStep } from '../domain/chain.js';
import type { Collection, CollectionFields, CollectionStore, CollectionVersion } from '../domain/stores/collection-store.js';
import { newId } from '../lib/ids.js';
import type { Db } from './database.js';

interface RawRow extends Omit<Collection, 'steps' | 'public' | 'monitored'> {
  steps: string;
  public: number;
  monitored: number;
}

const SELECT = `SELECT c.id, c.org_id AS orgId, c.slug, c.name, c.model, c.steps, c.readme_md AS readmeMd, c.public, c.version,
  c.forked_from AS forkedFrom, c.monitored, c.created_at AS createdAt, c.updated_at AS updatedAt,
  (SELECT COUNT(*) FROM collection_stars s WHERE s.collection_id = c.id) AS stars FROM collections c`;

const parse = (r: RawRow): Collection => ({ ...r, steps: JSON.parse(r.steps) as ChainStep[], public: r.public === 1, monitored: r.monitored === 1 });

/** The CollectionStore on SQLite: statements prepared once; a check or a read and its write in one immediate transaction. */
export function sqliteCollectionStore(db: Db): CollectionStore {
  const byOrg = db.prepare(`${SELECT} WHERE c.org_id = ? ORDER BY c.created_at, c.id`);
  const publicAll = db.prepare(`${SELECT} WHERE c.public = 1 ORDER BY stars DESC, c.updated_at DESC, c.id LIMIT ?`);
  const publicOf = db.prepare(`${SELECT} WHERE c.public = 1 AND c.model = ? ORDER BY stars DESC, c.updated_at DESC, c.id LIMIT ?`);
  const byId = db.prepare(`${SELECT} WHERE c.id = ?`);
  const bySlug = db.prepare(`${SELECT} WHERE c.slug = ?`);
  const versions = db.prepare(`SELECT version, name, model, steps, readme_md AS readmeMd, created_at AS createdAt
    FROM collection_versions WHERE collection_id = ? ORDER BY version DESC`);
  const starred = db.prepare('SELECT collection_id FROM collection_stars WHERE org_id = ?').pluck();
  const count = db.prepare('SELECT COUNT(*) FROM collections WHERE org_id = ?').pluck();
  const slugTaken = db.prepare('SELECT 1 FROM collections WHERE slug = ?');
  const insert = db.prepare(`INSERT INTO collections (id, org_id, slug, name, model, steps, readme_md, public, version, forked_from, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`);
  const update = db.prepare('UPDATE collections SET name = ?, model = ?, steps = ?, readme_md = ?, public = ?, version = ?, updated_at = ? WHERE id = ?');
  const addVersion = db.prepare(`INSERT INTO collection_versions (collection_id, version, name, model, steps, readme_md, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const del = db.prepare('DELETE FROM collections WHERE id = ? AND org_id = ?');
  const unstar = db.prepare('DELETE FROM collection_stars WHERE collection_id = ? AND org_id = ?');
  const star = db.prepare('INSERT INTO collection_stars (collection_id, org_id, created_at) VALUES (?, ?, ?)');
  const stars = db.prepare('SELECT COUNT(*) FROM collection_stars WHERE collection_id = ?').pluck();

  const one = (r: unknown): Collection | undefined => (r === undefined ? undefined : parse(r as RawRow));
  const version = (id: string, v: number, f: CollectionFields, now: number): void => {
    addVersion.run(id, v, f.name, f.model, JSON.stringify(f.steps), f.readmeMd, now);
  };
  const create = db.transaction((c: Parameters<CollectionStore['create']>[0], now: number, check?: Parameters<CollectionStore['create']>[2]) => {
    check?.({ count: count.get(c.orgId) as number });
    let slug: string;
    do slug = c.slug(); while (slugTaken.get(slug) !== undefined);
    const id = newId('col');
    const f = c.fields;
    insert.run(id, c.orgId, slug, f.name, f.model, JSON.stringify(f.steps), f.readmeMd, f.public ? 1 : 0, c.forkedFrom, now, now);
    version(id, 1, f, now);
    return one(byId.get(id))!;
  });
  const edit = db.transaction((id: string, now: number, change: (current: Collection) => CollectionFields) => {
    const current = one(byId.get(id));
    if (current === undefined) return undefined;
    const f = change(current);
    const v = current.version + 1;
    update.run(f.name, f.model, JSON.stringify(f.steps), f.readmeMd, f.public ? 1 : 0, v, now, id);
    version(id, v, f, now);
    return one(byId.get(id))!;
  });
  const toggle = db.transaction((id: string, orgId: string, now: number) => {
    const starredNow = unstar.run(id, orgId).changes === 0;
    if (starredNow) star.run(id, orgId, now);
    return { starred: starredNow, stars: stars.get(id) as number };
  });
  return {
    listByOrg: async (orgId) => (byOrg.all(orgId) as RawRow[]).map(parse),
    listPublic: async (model, limit) => ((model === null ? publicAll.all(limit) : publicOf.all(model, limit)) as RawRow[]).map(parse),
    find: async (id) => one(byId.get(id)),
    findBySlug: async (slug) => one(bySlug.get(slug)),
    versions: async (id) => (versions.all(id) as (Omit<CollectionVersion, 'steps'> & { steps: string })[])
      .map((v) => ({ ...v, steps: JSON.parse(v.steps) as ChainStep[] })),
    starredBy: async (orgId) => new Set(starred.all(orgId) as string[]),
    create: async (c, now, check) => create.immediate(c, now, check),
    update: async (id, now, change) => edit.immediate(id, now, change),
    delete: async (orgId, id) => del.run(id, orgId).changes > 0,
    toggleStar: async (id, orgId, now) => toggle.immediate(id, orgId, now),
  };
}
