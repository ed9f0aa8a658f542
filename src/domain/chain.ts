/**
 * One step of an org's saved routing chain for a model (spec 4.7): a catalog model (the chain's
 * own when absent) and, optionally, the one provider to use for it. A chain's steps expand, in
 * order, to the routes tried for a request that names the chain's model.
 */
export interface ChainStep {
  model: string;
  provider: string | null;
}

/** Where the control plane hands saved chains to the data plane; null removes one. */
export interface ChainSink {
  chainChanged(orgId: string, model: string, steps: readonly ChainStep[] | null): void;
}
