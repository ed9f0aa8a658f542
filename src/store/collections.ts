import type { ChainStep } from '../domain/chain.js';
import { newId } from '../lib/ids.js';
import type { Db } from './database.js';

export interface CollectionRow {
  id: string;
  org_id: string;
  slug: string;
  name: string;
  model: string;
  steps: ChainStep[];
  readme_md: string;
  public: boolean;
  version: number;
  forked_from: string | null;
  monitored: boolean;
  created_at: number;
  updated_at: number;
  /** Orgs that have starred it. */
  stars: number;
}

export interface CollectionVersionRow {
  version: number;
  name: string;
  model: string;
  steps: ChainStep[];
  readme_md: string;
  created_at: number;
}

export interface CollectionFields {
  name: string;
  model: string;
  steps: readonly ChainStep[];
  readme_md: string;
  public: boolean;
}

interface RawRow extends Omit<CollectionRow, 'steps' | 'public' | 'monitored'> {
  steps: string;
  public: number;
  monitored: number;
}

const SELECT = `SELECT c.*, (SELECT COUNT(*) FROM collection_stars s WHERE s.collection_id = c.id) AS stars FROM collections c`;

const parse = (r: RawRow): CollectionRow => ({ ...r, steps: JSON.parse(r.steps) as ChainStep[], public: r.public === 1, monitored: r.monitored === 1 });

export function listOrgCollections(db: Db, orgId: string): CollectionRow[] {
  return (db.prepare(`${SELECT} WHERE c.org_id = ? ORDER BY c.created_at, c.id`).all(orgId) as RawRow[]).map(parse);
}

export function countOrgCollections(db: Db, orgId: string): number {
  return db.prepare('SELECT COUNT(*) FROM collections WHERE org_id = ?').pluck().get(orgId) as number;
}

/** Public collections, most starred first; optionally of one model. */
export function listPublicCollections(db: Db, model: string | null, limit: number): CollectionRow[] {
  const where = model === null ? 'c.public = 1' : 'c.public = 1 AND c.model = ?';
  const args = model === null ? [limit] : [model, limit];
  return (db.prepare(`${SELECT} WHERE ${where} ORDER BY stars DESC, c.updated_at DESC, c.id LIMIT ?`).all(...args) as RawRow[]).map(parse);
}

export function findCollection(db: Db, id: string): CollectionRow | null {
  const r = db.prepare(`${SELECT} WHERE c.id = ?`).get(id) as RawRow | undefined;
  return r ? parse(r) : null;
}

export function findCollectionBySlug(db: Db, slug: string): CollectionRow | null {
  const r = db.prepare(`${SELECT} WHERE c.slug = ?`).get(slug) as RawRow | undefined;
  return r ? parse(r) : null;
}

export function slugTaken(db: Db, slug: string): boolean {
  return db.prepare('SELECT 1 FROM collections WHERE slug = ?').get(slug) !== undefined;
}

export function collectionVersions(db: Db, id: string): CollectionVersionRow[] {
  return (db.prepare('SELECT version, name, model, steps, readme_md, created_at FROM collection_versions WHERE collection_id = ? ORDER BY version DESC')
    .all(id) as (Omit<CollectionVersionRow, 'steps'> & { steps: string })[]).map((v) => ({ ...v, steps: JSON.parse(v.steps) as ChainStep[] }));
}

/** Inserts a collection at version 1 and records that version. */
export function insertCollection(db: Db, orgId: string, slug: string, f: CollectionFields, forkedFrom: string | null, now: number): string {
  const id = newId('col');
  db.prepare(`INSERT INTO collections (id, org_id, slug, name, model, steps, readme_md, public, version, forked_from, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`)
    .run(id, orgId, slug, f.name, f.model, JSON.stringify(f.steps), f.readme_md, f.public ? 1 : 0, forkedFrom, now, now);
  addVersion(db, id, 1, f, now);
  return id;
}

/** Replaces the editable fields and records them as the next version. */
export function updateCollection(db: Db, id: string, version: number, f: CollectionFields, now: number): void {
  db.prepare('UPDATE collections SET name = ?, model = ?, steps = ?, readme_md = ?, public = ?, version = ?, updated_at = ? WHERE id = ?')
    .run(f.name, f.model, JSON.stringify(f.steps), f.readme_md, f.public ? 1 : 0, version, now, id);
  addVersion(db, id, version, f, now);
}

function addVersion(db: Db, id: string, version: number, f: CollectionFields, now: number): void {
  db.prepare('INSERT INTO collection_versions (collection_id, version, name, model, steps, readme_md, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(id, version, f.name, f.model, JSON.stringify(f.steps), f.readme_md, now);
}

export function deleteCollection(db: Db, id: string): void {
  db.prepare('DELETE FROM collections WHERE id = ?').run(id);
}

/** Stars or unstars for the org; returns whether it is now starred. */
export function toggleStar(db: Db, id: string, orgId: string, now: number): boolean {
  if (db.prepare('DELETE FROM collection_stars WHERE collection_id = ? AND org_id = ?').run(id, orgId).changes > 0) return false;
  db.prepare('INSERT INTO collection_stars (collection_id, org_id, created_at) VALUES (?, ?, ?)').run(id, orgId, now);
  return true;
}

export function starredBy(db: Db, orgId: string): Set<string> {
  return new Set(db.prepare('SELECT collection_id FROM collection_stars WHERE org_id = ?').pluck().all(orgId) as string[]);
}
