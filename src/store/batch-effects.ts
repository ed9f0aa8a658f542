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
  // Consecutive rows mostly share their key, org, workspace and IST day (the calendar gives one
  // string per day): a run of them is summed in locals and added to the maps when it ends. A map
  // read or write with a key made for each row cost ~550 instructions, nine a row (callgrind, the
  // ledger writer's thread): 0.65 → 0.05 µs a row for one caller's batch, and no dearer with no
  // runs at all (docs/benchmarks.md, twenty-eighth session). Costs are integer micro-rupees, so
  // the sums are exact in any order.
  let key = '';
  let org = '';
  let workspace = '';
  let day = '';
  let month = '';
  let cost = 0;
  let billed = false;
  let requests = 0;
  let last = 0;
  const flush = (): void => {
    if (billed) {
      orgDebits.set(org, (orgDebits.get(org) ?? 0) + cost);
      const kk = `${key}\u0000${month}`;
      monthSpend.set(kk, (monthSpend.get(kk) ?? 0) + cost);
      const wk = `${workspace}\u0000${month}`;
      monthSpend.set(wk, (monthSpend.get(wk) ?? 0) + cost);
    }
    if (requests > 0) {
      const k = `${key}\u0000${day}`;
      dayCounts.set(k, (dayCounts.get(k) ?? 0) + requests);
    }
    if (last > (keyLastUsed.get(key) ?? 0)) keyLastUsed.set(key, last);
  };
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const at = r[F.at] as number;
    const rowDay = calendar.day(at);
    const rowKey = r[F.keyId] as string;
    const rowOrg = r[F.orgId] as string;
    const rowWorkspace = r[F.workspaceId] as string;
    if (i === 0 || rowDay !== day || rowKey !== key || rowOrg !== org || rowWorkspace !== workspace) {
      if (i > 0) flush();
      key = rowKey;
      org = rowOrg;
      workspace = rowWorkspace;
      day = rowDay;
      month = calendar.month(at);
      cost = 0;
      billed = false;
      requests = 0;
      last = 0;
    }
    const c = r[F.costMicros] as number;
    if (r[F.billable] === 1 && c !== 0) {
      cost += c;
      billed = true;
    }
    if (r[F.attempt] === 0) requests++;
    if (at > last) last = at;
  }
  if (rows.length > 0) flush();
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
