import type { LimitsReader } from '../domain/limits-reader.js';

/**
 * The durable figures a shared gate starts from when Redis does not have them (first sight, a new
 * IST day or month, or Redis lost its data), read from a database that may be remote. The same
 * shape as the AsyncLimitsReader of domain/limits-reader.ts (issue 19), declared here so this
 * module stands alone until the two are merged.
 */
export interface AsyncLimitsReader {
  keyDailyCount(keyId: string, day: string): Promise<number>;
  orgTrialDailyCount(orgId: string, day: string): Promise<number>;
  monthlySpend(scopeId: string, month: string): Promise<number>;
  orgBalance(orgId: string): Promise<{ balanceMicros: number; moneyEventId: number } | null>;
  workspaceBudget(workspaceId: string): Promise<number | null>;
}

/** An embedded (SQLite) reader seen through the async shape. */
export function asyncLimitsReader(r: LimitsReader): AsyncLimitsReader {
  return {
    keyDailyCount: async (keyId, day) => r.keyDailyCount(keyId, day),
    orgTrialDailyCount: async (orgId, day) => r.orgTrialDailyCount(orgId, day),
    monthlySpend: async (scopeId, month) => r.monthlySpend(scopeId, month),
    orgBalance: async (orgId) => r.orgBalance(orgId),
    workspaceBudget: async (id) => r.workspaceBudget(id),
  };
}
