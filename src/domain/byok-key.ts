/** An org's own key for one provider (BYOK, spec 4.5), as the data plane uses it. */
export interface ByokKey {
  key: string;
  /** The provider is only ever called with this key for the org, catalog routes included. */
  alwaysUse: boolean;
}

/** Where the control plane hands saved keys to the data plane; null removes one. */
export interface ByokKeySink {
  orgKeyChanged(orgId: string, provider: string, saved: ByokKey | null): void;
}
