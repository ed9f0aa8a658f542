/** An org's registered OpenAI-compatible endpoint (spec 4.9), as the data plane calls it. */
export interface OrgEndpoint {
  name: string;
  baseUrl: string;
  key: string | null;
  /** Passed its last compliance test; only then is it called. */
  compliant: boolean;
  /** Calls may reach public addresses only (customEndpoints.allowInternalAddresses off). */
  publicOnly: boolean;
}

/** Where the control plane hands registered endpoints to the data plane; null removes one. */
export interface OrgEndpointSink {
  endpointChanged(orgId: string, name: string, endpoint: OrgEndpoint | null): void;
}

/** Models of a registered endpoint are addressed as `custom/<endpoint name>/<model id>`. */
export const CUSTOM_PREFIX = 'custom';
