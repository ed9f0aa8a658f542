/** An org's saved key for one provider, as the data plane uses it (spec 4.5). */
export interface OrgKey {
  key: string;
  /** The provider is only ever called with this key for the org, catalog routes included. */
  alwaysUse: boolean;
}

/** Where the control plane hands saved keys to the data plane; null removes one. */
export interface OrgKeySink {
  orgKeyChanged(orgId: string, provider: string, saved: OrgKey | null): void;
}
