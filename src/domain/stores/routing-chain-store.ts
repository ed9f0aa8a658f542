import type { ChainStep } from '../chain.js';

/** An org's saved fallback chain for one model (spec 4.7). */
export interface SavedChain {
  orgId: string;
  model: string;
  steps: ChainStep[];
  updatedAt: number;
}

/** Saved routing chains, as the services read and change them (one atomic operation a method). */
export interface RoutingChainStore {
  /** Every org's chains, for the data plane at start. */
  all(): Promise<SavedChain[]>;
  /** The org's chains, by model id. */
  list(orgId: string): Promise<SavedChain[]>;
  find(orgId: string, model: string): Promise<SavedChain | undefined>;
  /** Saves or replaces the org's chain for the model. */
  save(orgId: string, model: string, steps: readonly ChainStep[], userId: string, now: number): Promise<SavedChain>;
  /** false when there was no chain to delete. */
  delete(orgId: string, model: string): Promise<boolean>;
}
