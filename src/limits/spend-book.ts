import type { LimitsReader } from '../domain/limits-reader.js';
import { IstCalendar } from '../lib/ist.js';
import { SlidingWindow } from '../lib/sliding-window.js';

export class KeyState {
  readonly window = new SlidingWindow();
  day = '';
  dayCount = 0;
  month = '';
  monthSpent = 0;
  reserved = 0;
}

/** An org's trial allowance, shared by all its trial keys, past and present. */
export class TrialState {
  readonly window = new SlidingWindow();
  day = '';
  dayCount = 0;
}

export class OrgState {
  constructor(public balance: number, public moneyEventId: number) {}
  reserved = 0;
}

export class WorkspaceState {
  constructor(public budget: number | null) {}
  month = '';
  spent = 0;
  reserved = 0;
}

/**
 * The in-memory counterpart of the ledger: per key, org and workspace, what the durable tables
 * say (read once, on first sight or at a new IST day/month) plus what this process has spent
 * since. A state object, once made, stays its id's for the process's life (so a request may keep
 * it between admission and settlement). Only this gateway debits usage, so nothing needs re-reading; credits made elsewhere
 * arrive as money events through applyMoneyEvent().
 */
export class SpendBook {
  readonly #reader: LimitsReader;
  readonly #keys = new Map<string, KeyState>();
  readonly #orgs = new Map<string, OrgState>();
  readonly #workspaces = new Map<string, WorkspaceState>();
  readonly #trials = new Map<string, TrialState>();
  readonly #calendar = new IstCalendar();

  constructor(reader: LimitsReader) {
    this.#reader = reader;
  }

  key(id: string): KeyState {
    let k = this.#keys.get(id);
    if (!k) this.#keys.set(id, (k = new KeyState()));
    return k;
  }

  /** The key's request count for the IST day of `now`, loaded from the ledger at a new day. */
  keyDay(k: KeyState, keyId: string, now: number): KeyState {
    const day = this.#calendar.day(now);
    if (k.day !== day) {
      k.day = day;
      k.dayCount = this.#reader.keyDailyCount(keyId, day);
    }
    return k;
  }

  /**
   * The org's trial allowance, its day count loaded from the ledger at a new IST day. The rolling
   * minute lives in memory only, as a key's does (a restart forgets at most one minute).
   */
  trial(orgId: string, now: number): TrialState {
    let t = this.#trials.get(orgId);
    if (!t) this.#trials.set(orgId, (t = new TrialState()));
    const day = this.#calendar.day(now);
    if (t.day !== day) {
      t.day = day;
      t.dayCount = this.#reader.orgTrialDailyCount(orgId, day);
    }
    return t;
  }

  keyMonth(k: KeyState, keyId: string, now: number): KeyState {
    const month = this.#calendar.month(now);
    if (k.month !== month) {
      k.month = month;
      k.monthSpent = this.#reader.monthlySpend(keyId, month);
    }
    return k;
  }

  org(id: string): OrgState {
    let o = this.#orgs.get(id);
    if (!o) {
      const snap = this.#reader.orgBalance(id);
      o = new OrgState(snap?.balanceMicros ?? 0, snap?.moneyEventId ?? 0);
      this.#orgs.set(id, o);
    }
    return o;
  }

  workspace(id: string, now: number): WorkspaceState {
    let w = this.#workspaces.get(id);
    if (!w) this.#workspaces.set(id, (w = new WorkspaceState(this.#reader.workspaceBudget(id))));
    return this.workspaceMonth(w, id, now);
  }

  /** A workspace's spend for the IST month of `now` (when it has a budget), loaded from the ledger at a new month. */
  workspaceMonth(w: WorkspaceState, id: string, now: number): WorkspaceState {
    if (w.budget === null) return w;
    const month = this.#calendar.month(now);
    if (w.month !== month) {
      w.month = month;
      w.spent = this.#reader.monthlySpend(id, month);
    }
    return w;
  }

  /** A credit or payment recorded by another process (CLI, webhook) moves a loaded balance. */
  applyMoneyEvent(orgId: string, eventId: number, amountMicros: number): void {
    const o = this.#orgs.get(orgId);
    if (!o || eventId <= o.moneyEventId) return;
    o.balance += amountMicros;
    o.moneyEventId = eventId;
  }

  /** A workspace's budget changed: read it again (its spend so far stays). */
  reloadWorkspace(id: string): void {
    const w = this.#workspaces.get(id);
    if (!w) return;
    const hadBudget = w.budget !== null;
    w.budget = this.#reader.workspaceBudget(id);
    // Spend is tracked only while a budget exists: load it when one appears; otherwise keep the
    // in-memory figure, which includes spend the ledger has not committed yet.
    if (!hadBudget) w.month = '';
  }
}
