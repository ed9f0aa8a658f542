/** One check of a compliance test. */
export interface ComplianceCheck {
  name: 'models' | 'chat' | 'stream';
  ok: boolean;
  detail: string;
}

/** What a compliance test of an OpenAI-compatible endpoint found. */
export interface ComplianceReport {
  /** compliant: all checks pass; non_compliant: it answers, but not as OpenAI's API does; unreachable: no answer at all. */
  status: 'compliant' | 'non_compliant' | 'unreachable';
  models: string[];
  checks: ComplianceCheck[];
}

/** An org's registered endpoint (spec 4.9), its key sealed. */
export interface CustomEndpoint {
  id: string;
  orgId: string;
  /** Unique in the org; models are called as custom/<name>/<model>. */
  name: string;
  baseUrl: string;
  /** The key sealed with the master key; null for an endpoint without one. */
  keySealed: string | null;
  /** The key masked, for display. */
  keyHint: string | null;
  /** The last compliance test. */
  compliance: ComplianceReport;
  testedAt: number;
  createdAt: number;
}

export interface NewCustomEndpoint {
  orgId: string;
  name: string;
  baseUrl: string;
  keySealed: string | null;
  keyHint: string | null;
  compliance: ComplianceReport;
}

/** What a new endpoint's rules are checked on, read in the same transaction as its insert. */
export interface NewEndpointFacts {
  /** An endpoint of the org already has the new one's name. */
  nameTaken: boolean;
  /** Endpoints the org has registered. */
  count: number;
}

/** Registered endpoints, as the services read and change them (one atomic operation a method). */
export interface CustomEndpointStore {
  /** Every org's endpoints, for the data plane at start. */
  all(): Promise<CustomEndpoint[]>;
  /** The org's endpoints, oldest first. */
  list(orgId: string): Promise<CustomEndpoint[]>;
  find(id: string): Promise<CustomEndpoint | undefined>;
  /** The facts a new endpoint is checked on, read now (a quick refusal before a slow test). */
  newEndpointFacts(orgId: string, name: string): Promise<NewEndpointFacts>;
  /** Inserts an endpoint; `check` runs inside the insert's transaction on the facts it reads there and throws to refuse. */
  create(e: NewCustomEndpoint, now: number, check?: (facts: NewEndpointFacts) => void): Promise<CustomEndpoint>;
  /** Keeps a new test's report; undefined when there is no such endpoint. */
  recordTest(id: string, report: ComplianceReport, now: number): Promise<CustomEndpoint | undefined>;
  /** false when there was no such endpoint. */
  delete(id: string): Promise<boolean>;
}
