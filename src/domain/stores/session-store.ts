/** Browser sessions, as the account and team services change them (one atomic operation a method). */
export interface SessionStore {
  /** Makes `orgId` the org the session (by its hash) acts in. */
  setActiveOrg(hash: string, orgId: string): Promise<void>;
  /** Ends the session whose cookie value is `token`, if there is one. */
  end(token: string): Promise<void>;
}
