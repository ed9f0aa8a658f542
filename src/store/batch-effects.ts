import { IstCalendar } from '../lib/ist.js';
import { USAGE_SLOT, type UsageTuple } from '../domain/usage-record.js';

const F = USAGE_SLOT;

/** What one ledger batch moves besides its rows, summed per target, each list sorted by its keys. */
export interface BatchEffects {
  /** [org id, micros] debited from the balance. */
  orgDebits: [string, number][];
  /** [key or workspace id, IST month, micros] added to the monthly spend. */
  monthSpend: [string, string, number][];
  /** [key id, IST day, requests] added to the daily count. */
  dayCounts: [string, string, number][];
  /** [key id, Unix ms] the key was last used. */
  keyLastUsed: [string, number][];
}

/**
 * The effects of a batch, the same for every database's writer: the billable attempt's cost
 * debits the org and counts toward the key's and workspace's month; a request's first attempt
 * stands for the request in the day's count. Sorted, so every writer updates rows in one order
 * (two concurrent writers on PostgreSQL never wait on each other in a cycle).
 */
export function batchEffects(rows: readonly UsageTuple[]): BatchEffects {
  const orgDebits = new Map<string, number>();
  const monthSpend = new Map<string, number>();
  const dayCounts = new Map<string, number>();
  const keyLastUsed = new Map<string, number>();
  const calendar = new IstCalendar();
  for (const r of rows) {
    const at = r[F.at] as number;
    const cost = r[F.costMicros] as number;
    const keyId = r[F.keyId] as string;
    if (r[F.billable] === 1 && cost !== 0) {
      const org = r[F.orgId] as string;
      orgDebits.set(org, (orgDebits.get(org) ?? 0) + cost);
      const month = calendar.month(at);
      const kk = `${keyId}\u0000${month}`;
      monthSpend.set(kk, (monthSpend.get(kk) ?? 0) + cost);
      const wk = `${r[F.workspaceId]}\u0000${month}`;
      monthSpend.set(wk, (monthSpend.get(wk) ?? 0) + cost);
    }
    if (r[F.attempt] === 0) {
      const k = `${keyId}\u0000${calendar.day(at)}`;
      dayCounts.set(k, (dayCounts.get(k) ?? 0) + 1);
    }
    if (at > (keyLastUsed.get(keyId) ?? 0)) keyLastUsed.set(keyId, at);
  }
  const sorted = <V>(m: Map<string, V>): [string, V][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const split = ([k, v]: [string, number]): [string, string, number] => {
    const [id, period] = k.split('\u0000');
    return [id, period, v];
  };
  return {
    orgDebits: sorted(orgDebits),
    monthSpend: sorted(monthSpend).map(split),
    dayCounts: sorted(dayCounts).map(split),
    keyLastUsed: sorted(keyLastUsed),
  };
}
