import type { ChainStep } from '../chain.js';

/** What an edit of a collection may change; every edit is kept as a version. */
export interface CollectionFields {
  name: string;
  model: string;
  steps: readonly ChainStep[];
  readmeMd: string;
  public: boolean;
}

/** A named, versioned chain an org keeps and may publish (spec 4.8). */
export interface Collection {
  id: string;
  orgId: string;
  /** Global and permanent: renames keep it. */
  slug: string;
  name: string;
  model: string;
  steps: ChainStep[];
  readmeMd: string;
  public: boolean;
  /** 1 at creation; every edit adds one. */
  version: number;
  /** The slug of the collection it was forked from. */
  forkedFrom: string | null;
  /** Canaried on a schedule (reliability monitoring). */
  monitored: boolean;
  createdAt: number;
  updatedAt: number;
  /** Orgs that have starred it (one star per org). */
  stars: number;
}

export interface CollectionVersion {
  version: number;
  name: string;
  model: string;
  steps: ChainStep[];
  readmeMd: string;
  createdAt: number;
}

export interface NewCollection {
  orgId: string;
  fields: CollectionFields;
  forkedFrom: string | null;
  /** A slug to try; called again until one is unused. */
  slug(): string;
}

/** What a new collection's rules are checked on, read in the same transaction as its insert. */
export interface NewCollectionFacts {
  /** Collections the org keeps now. */
  count: number;
}

/** Collections and their versions and stars, as the services read and change them (one atomic operation a method). */
export interface CollectionStore {
  /** The org's collections, oldest first. */
  listByOrg(orgId: string): Promise<Collection[]>;
  /** Public collections, most starred first, then most recently updated; optionally of one model. */
  listPublic(model: string | null, limit: number): Promise<Collection[]>;
  find(id: string): Promise<Collection | undefined>;
  findBySlug(slug: string): Promise<Collection | undefined>;
  /** Every version of a collection, newest first. */
  versions(id: string): Promise<CollectionVersion[]>;
  /** Ids of the collections the org has starred. */
  starredBy(orgId: string): Promise<Set<string>>;
  /**
   * Inserts a collection at version 1 under an unused slug. `check` runs inside the insert's
   * transaction on the facts it reads there and throws to refuse (the org's cap).
   */
  create(c: NewCollection, now: number, check?: (facts: NewCollectionFacts) => void): Promise<Collection>;
  /**
   * Replaces a collection's fields with what `change` makes of the current ones, read in the
   * write's transaction (it throws to refuse), and records them as the next version;
   * undefined when there is no such collection.
   */
  update(id: string, now: number, change: (current: Collection) => CollectionFields): Promise<Collection | undefined>;
  /** Deletes the org's collection with its versions and stars; false when the org has no such collection. */
  delete(orgId: string, id: string): Promise<boolean>;
  /** Stars the collection for the org, or takes the star back. */
  toggleStar(id: string, orgId: string, now: number): Promise<{ starred: boolean; stars: number }>;
}
