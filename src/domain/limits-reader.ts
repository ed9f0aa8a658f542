/** The durable figures the in-memory limits start from when they first see a key, org or workspace. */
export interface LimitsReader {
  keyDailyCount(keyId: string, day: string): number;
  /** Requests made by all of an org's trial keys on an IST day, revoked and expired ones included. */
  orgTrialDailyCount(orgId: string, day: string): number;
  monthlySpend(scopeId: string, month: string): number;
  /** Balance and the money-event high-water mark it includes, read in one snapshot. */
  orgBalance(orgId: string): { balanceMicros: number; moneyEventId: number } | null;
  workspaceBudget(workspaceId: string): number | null;
  moneyEventsSince(id: number): { id: number; org_id: string; amount_micros: number }[];
  latestMoneyEventId(): number;
}

/**
 * The same figures from a database across the network (PostgreSQL): each a promise. orgBalance
 * still reads the balance and the high-water mark it includes in one snapshot.
 */
export type AsyncLimitsReader = { [K in keyof LimitsReader]: (...args: Parameters<LimitsReader[K]>) => Promise<ReturnType<LimitsReader[K]>> };
