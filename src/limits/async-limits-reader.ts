import type { AsyncLimitsReader, LimitsReader } from '../domain/limits-reader.js';

export type { AsyncLimitsReader };

/** An embedded (SQLite) reader seen through the async shape. */
export function asyncLimitsReader(r: LimitsReader): AsyncLimitsReader {
  return {
    keyDailyCount: async (keyId, day) => r.keyDailyCount(keyId, day),
    orgTrialDailyCount: async (orgId, day) => r.orgTrialDailyCount(orgId, day),
    monthlySpend: async (scopeId, month) => r.monthlySpend(scopeId, month),
    orgBalance: async (orgId) => r.orgBalance(orgId),
    workspaceBudget: async (id) => r.workspaceBudget(id),
    moneyEventsSince: async (id) => r.moneyEventsSince(id),
    latestMoneyEventId: async () => r.latestMoneyEventId(),
  };
}
