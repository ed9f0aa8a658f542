/** A stored Responses API answer (DESIGN.md §6): the response object and the conversation that led to it. */
export interface StoredResponse {
  id: string;
  orgId: string;
  /** Unix ms. */
  createdAt: number;
  model: string;
  /** The `response` object, JSON. */
  body: string;
  /** The conversation's items up to and including this response's output, JSON array. */
  items: string;
}

/**
 * Where the data plane keeps and finds stored responses, one org's never visible to another.
 * Expired rows (past the retention) read as absent. Synchronous on SQLite; promises on a database
 * across the network (PostgreSQL): the service takes either.
 */
export interface ResponseStore {
  save(r: StoredResponse): void | Promise<void>;
  find(orgId: string, id: string): { body: string; items: string } | null | Promise<{ body: string; items: string } | null>;
  /** false when the org has no such (unexpired) response. */
  remove(orgId: string, id: string): boolean | Promise<boolean>;
}
