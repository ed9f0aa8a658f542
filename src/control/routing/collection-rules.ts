import { randomBytes } from 'node:crypto';
import type { Catalog } from '../../catalog/catalog.js';
import { cleanName } from '../../domain/display-name.js';
import type { CollectionFields } from '../../domain/stores/collection-store.js';
import { errors } from '../../errors/catalog.js';
import { catalogModel, checkSteps } from './chain-rules.js';

export const COLLECTION_NAME_MAX = 64;
export const README_MAX = 20_000;
/** Most public collections one listing returns. */
export const PUBLIC_LIST_MAX = 100;
// Markdown keeps tabs and line breaks; other control characters have no business in a README.
const README_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** A collection's fields as sent: the model and steps are whatever the body held. */
export interface CollectionInput {
  name: string;
  model: unknown;
  steps: unknown;
  readmeMd: string;
  public: boolean;
}

/** Checks every field: name (bad_name), model (bad_model), steps (bad_steps), README (bad_readme). */
export function checkFields(catalog: Catalog, f: CollectionInput): CollectionFields {
  const name = cleanName(f.name, COLLECTION_NAME_MAX, 'Collection');
  const model = catalogModel(catalog, f.model);
  const steps = checkSteps(catalog, model, f.steps);
  if (f.readmeMd.length > README_MAX) throw errors.rule('bad_readme', `readme_md is at most ${README_MAX} characters`);
  if (README_FORBIDDEN.test(f.readmeMd)) throw errors.rule('bad_readme', 'readme_md has control characters');
  return { name, model: model.id, steps, readmeMd: f.readmeMd, public: f.public };
}

/** The org's cap on collections, checked on the count read in the insert's transaction. */
export function checkCollectionCap(count: number, cap: number): void {
  if (count >= cap) throw errors.rule('cap', `An organisation keeps at most ${cap} collections`);
}

/** A readable, unguessable slug to try: the name's letters and digits, then six random ones. */
export function slugCandidate(name: string): string {
  const base = name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'collection';
  return `${base}-${randomBytes(4).readUInt32BE(0).toString(36).padStart(6, '0').slice(-6)}`;
}
