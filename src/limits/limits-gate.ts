import type { KeyRecord } from '../domain/key-record.js';
import { errors } from '../errors/catalog.js';
import type { RequestGate, Ticket } from '../domain/request-gate.js';
import type { Clock } from '../lib/clock.js';
import { nextIstMidnight, nextIstMonthStart, secondsUntil } from '../lib/ist.js';
import type { KeyState, OrgState, SpendBook, WorkspaceState } from './spend-book.js';

/**
 * Trial keys: hard caps (spec 5.4), which hold per key and for the org's trial keys together, so
 * more keys, or a key revoked and created again, do not add to an org's free allowance.
 */
export const TRIAL_RPM = 60;
export const TRIAL_DAILY = 200;

export interface LimitsGateOptions {
  /** The gateway cap per key per rolling minute (spec 8: 120). */
  gatewayRpm: number;
  clock: Clock;
  book: SpendBook;
  /** True while the ledger writer is behind: new requests are refused rather than records dropped. */
  ledgerSaturated: () => boolean;
}

/**
 * A ticket with the key's, org's and workspace's states found at enter(): admit() and settle()
 * use them rather than look each up again by id (six map reads a request, bench:instructions).
 */
class GateTicket implements Ticket {
  admitted = false;
  reservedMicros = 0;
  constructor(readonly key: KeyRecord, readonly k: KeyState, readonly org: OrgState | null, readonly ws: WorkspaceState | null) {}
}

/**
 * The limits of spec 7 and 8 applied in memory on the hot path. Budgets and balance are checked
 * against what is spent plus what in-flight requests hold, so concurrent requests can overshoot
 * a cap by at most the holds of requests already admitted when it was reached.
 */
export class LimitsGate implements RequestGate {
  readonly #o: LimitsGateOptions;

  constructor(o: LimitsGateOptions) {
    this.#o = o;
  }

  enter(key: KeyRecord): Ticket {
    const { clock, book } = this.#o;
    if (this.#o.ledgerSaturated()) throw errors.overloaded();
    const now = clock.now();
    const k = book.key(key.id);
    const trial = key.tier === 'trial';

    const keyRpm = trial ? Math.min(key.rpmLimit ?? TRIAL_RPM, TRIAL_RPM) : key.rpmLimit;
    const byKey = keyRpm !== null && keyRpm < this.#o.gatewayRpm;
    const rpm = byKey ? keyRpm : this.#o.gatewayRpm;
    if (k.window.count(now) >= rpm) {
      const which = byKey ? `key limit of ${rpm} requests per minute` : `gateway cap of ${rpm} requests per minute per key`;
      throw errors.rateLimitExceeded(k.window.retryAfterSeconds(now, rpm), which);
    }

    const daily = trial ? Math.min(key.dailyLimit ?? TRIAL_DAILY, TRIAL_DAILY) : key.dailyLimit;
    if (daily !== null && book.keyDay(k, key.id, now).dayCount >= daily) {
      throw errors.dailyLimitReached(secondsUntil(now, nextIstMidnight(now)), daily);
    }
    if (trial) {
      const t = book.trial(key.orgId, now);
      if (t.window.count(now) >= TRIAL_RPM) {
        throw errors.rateLimitExceeded(t.window.retryAfterSeconds(now, TRIAL_RPM), `trial allowance of ${TRIAL_RPM} requests per minute per organisation`);
      }
      if (t.dayCount >= TRIAL_DAILY) {
        throw errors.dailyLimitReached(secondsUntil(now, nextIstMidnight(now)), TRIAL_DAILY, ' per organisation on trial keys');
      }
      t.window.add(now);
    }

    let org: OrgState | null = null;
    let ws: WorkspaceState | null = null;
    if (!trial) {
      org = book.org(key.orgId);
      if (org.balance - org.reserved <= 0) throw errors.insufficientCredits();
      if (key.monthlyBudgetMicros !== null) {
        book.keyMonth(k, key.id, now);
        if (k.monthSpent + k.reserved >= key.monthlyBudgetMicros) {
          throw errors.budgetExceeded(secondsUntil(now, nextIstMonthStart(now)), 'the key\'s monthly budget');
        }
      }
      ws = book.workspace(key.workspaceId, now);
      if (ws.budget !== null && ws.spent + ws.reserved >= ws.budget) {
        throw errors.budgetExceeded(secondsUntil(now, nextIstMonthStart(now)), 'the workspace\'s monthly budget');
      }
    }
    k.window.add(now);
    return new GateTicket(key, k, org, ws);
  }

  admit(ticket: Ticket, maxCostMicros: number): void {
    const t = ticket as GateTicket;
    const { clock, book } = this.#o;
    const key = t.key;
    const now = clock.now();
    const k = book.keyDay(t.k, key.id, now);
    k.dayCount++;
    t.admitted = true;
    if (key.tier === 'trial') {
      book.trial(key.orgId, now).dayCount++;
      return;
    }
    if (maxCostMicros <= 0) return;
    t.reservedMicros = maxCostMicros;
    k.reserved += maxCostMicros;
    t.org!.reserved += maxCostMicros;
    book.workspaceMonth(t.ws!, key.workspaceId, now).reserved += maxCostMicros;
  }

  settle(ticket: Ticket, costMicros: number): void {
    const t = ticket as GateTicket;
    const { clock, book } = this.#o;
    const key = t.key;
    const held = t.reservedMicros;
    t.reservedMicros = 0;
    if (held === 0 && costMicros === 0) return;
    const now = clock.now();
    const k = book.keyMonth(t.k, key.id, now);
    // A trial key costs nothing, so only a standard key's ticket gets here: its org and workspace were found at enter().
    const org = t.org ?? book.org(key.orgId);
    const ws = book.workspaceMonth(t.ws ?? book.workspace(key.workspaceId, now), key.workspaceId, now);
    k.reserved -= held;
    org.reserved -= held;
    ws.reserved -= held;
    k.monthSpent += costMicros;
    org.balance -= costMicros;
    ws.spent += costMicros;
  }
}
