import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { KeyRecord } from '../domain/key-record.js';
import { RedisScript } from '../cluster/redis-script.js';
import { KeyLease } from './key-lease.js';
import * as lua from './redis-lease-scripts.js';
import { OK } from './redis-limits-scripts.js';

export interface LeaseOptions {
  /** Slots of a key's minute claimed at once (the lease is refilled when half are used). */
  slots: number;
  /** How long claimed slots may be used; the unused go back after it. */
  periodMs: number;
  /** Money claimed at once, in maximum costs of the request that asks. */
  moneyRequests: number;
  /** A lease unused this long gives back its money. Default 5 s. */
  idleMs?: number;
  /** Costs of settled requests are sent together at most this often. Default 10 ms. */
  flushMs?: number;
}

type Reply = [number, ...unknown[]];

/** What the gate lends the keeper: its connection, key names, seeding runner and fault handling. */
export interface LeaseHost {
  redis: Redis;
  /** The rpm a standard key is held to (its own limit under the gateway cap). */
  rpmOf(key: KeyRecord): number;
  /** Keys and seeding of the standard enter script (claim) and of settle (spend). */
  enterKeys(key: KeyRecord, day: string, month: string): string[];
  /** The key's rolling minute and its day count. */
  slotKeys(key: KeyRecord, day: string): [string, string];
  settleKeys(key: KeyRecord, month: string): string[];
  runEnterShaped(script: RedisScript, keys: string[], args: (string | number)[], key: KeyRecord, day: string, month: string): Promise<Reply>;
  runSettleShaped(script: RedisScript, keys: string[], args: (string | number)[], key: KeyRecord, month: string): Promise<Reply>;
  now(): number;
  day(now: number): string;
  month(now: number): string;
  minuteTtlMs: number;
  holdTtlMs: number;
  /** Redis is known to be away: claim nothing. */
  down(): boolean;
  failed(e: unknown): void;
  /** A cost Redis could not take now, to add when it is back. */
  owe(key: KeyRecord, cost: number): void;
}

const SCRIPTS = {
  claim: new RedisScript(lua.LEASE_CLAIM),
  spend: new RedisScript(lua.LEASE_SPEND),
  giveBack: new RedisScript(lua.LEASE_RETURN),
};

/**
 * Local leases: admits most requests of a busy key without a round trip to Redis. An instance
 * claims a slice of the key's rolling minute and day (slots) and of its org's balance and budgets
 * (one growing hold), admits from it in memory, sends the costs of what it admitted in batches,
 * and gives back what it did not use: slots after `periodMs`, money after `idleMs` unused.
 *
 * Bounds (docs/scale-out.md, "Local leases"): nothing is admitted that Redis has not counted, so
 * no limit, balance or budget is exceeded by more than the exact path allows. The price is
 * under-admission: slots leased to an instance that gets no more requests of the key are idle
 * until its period ends (a crashed instance's count for a minute), and money leased to it until
 * it is idle for `idleMs` (a crashed instance's until the hold expires). Slots are leased only
 * while the key's minute is at most half full, and money only while it fits whole requests, so a
 * key near any limit is decided a round trip at a time, exactly.
 */
export class LeaseKeeper {
  readonly #h: LeaseHost;
  readonly #o: Required<LeaseOptions>;
  readonly #instance = randomBytes(6).toString('base64url');
  readonly #live = new Map<string, KeyLease>();
  readonly #retired = new Set<KeyLease>();
  #seq = 0;
  #flushTimer: NodeJS.Timeout | null = null;
  /** What settle() callers wait on until the next flush, and how that flush tells them. */
  #flushed: Promise<void> | null = null;
  #flushDone: (() => void) | null = null;
  #sweepTimer: NodeJS.Timeout | null = null;

  constructor(host: LeaseHost, o: LeaseOptions) {
    if (!(o.slots >= 1 && o.periodMs > 0 && o.moneyRequests >= 1)) throw new Error('LeaseKeeper: slots, periodMs and moneyRequests must be positive');
    this.#h = host;
    this.#o = { idleMs: 5_000, flushMs: 10, ...o };
  }

  /** Starts the background sweep (slots given back, idle money released); timers do not hold the process. */
  start(now: () => number): void {
    this.#sweepTimer ??= setInterval(() => void this.sweep(now()), Math.max(50, this.#o.periodMs / 2));
    this.#sweepTimer.unref();
  }

  /**
   * Admits a standard key's request from its lease, or answers null (then the caller decides it a
   * round trip at a time) after asking for a refill. `claim` false only looks (after a refusal).
   */
  admit(key: KeyRecord, micros: number, now: number, claim = true): KeyLease | null {
    let l = this.#live.get(key.id);
    if (l !== undefined && l.key !== key) {
      // The key's record was read again (limits, budget or revocation changed): start afresh.
      this.#retire(l);
      l = undefined;
    }
    if (l === undefined) {
      if (!claim) return null;
      l = new KeyLease(key, `L:${this.#instance}:${++this.#seq}`);
      l.lastUsed = now;
      this.#live.set(key.id, l);
    }
    const got = l.take(now, micros);
    if (claim) this.#refill(l, now, micros);
    return got ? l : null;
  }

  /** A request admitted from `l` ended; resolves once its cost reached Redis (never rejects). */
  settle(l: KeyLease, reservedMicros: number, costMicros: number): Promise<void> {
    l.settle(reservedMicros, Math.max(0, Math.round(costMicros)));
    if (l.pending === 0 && !l.retired) return Promise.resolve();
    return this.#flushSoon();
  }

  /** A workspace's budget changed: leases under it give their money back and claim again. */
  retireWorkspace(workspaceId: string): void {
    for (const l of this.#live.values()) if (l.key.workspaceId === workspaceId) this.#retire(l);
  }

  /** What this instance holds of a key now: usable slots and free micros (tests, metrics). */
  held(keyId: string, now: number): { slots: number; micros: number } {
    const l = this.#live.get(keyId);
    return l ? { slots: l.slotsLeft(now), micros: l.free } : { slots: 0, micros: 0 };
  }

  /** Leases held now (tests, metrics). */
  get size(): number {
    return this.#live.size + this.#retired.size;
  }

  /** Gives back what is due at `now`: expired slots, idle money, retired leases' leftovers. */
  async sweep(now: number): Promise<void> {
    const work: Promise<void>[] = [];
    for (const l of this.#live.values()) {
      if (l.inFlight === 0 && now - l.lastUsed >= this.#o.idleMs) this.#retire(l);
      else work.push(this.#giveBackSlots(l, now, false));
    }
    for (const l of this.#retired) {
      work.push(this.#giveBackSlots(l, now, true));
      if (l.pending > 0 || l.amount > l.reserved) work.push(this.#spend(l));
    }
    await Promise.all(work);
    for (const l of this.#retired) {
      if (!l.empty) continue;
      this.#retired.delete(l);
    }
  }

  /** Everything given back and every cost sent (shutdown, after requests drained). */
  async close(now: number): Promise<void> {
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    this.#sweepTimer = null;
    for (const l of [...this.#live.values()]) this.#retire(l);
    await this.sweep(now);
    await this.flush();
  }

  /** Sends every pending cost now. */
  async flush(): Promise<void> {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    const done = this.#flushDone;
    this.#flushTimer = null;
    this.#flushed = null;
    this.#flushDone = null;
    const work: Promise<void>[] = [];
    for (const l of this.#live.values()) if (l.pending > 0) work.push(this.#spend(l));
    for (const l of this.#retired) if (l.pending > 0 || l.amount > l.reserved) work.push(this.#spend(l));
    await Promise.all(work);
    done?.();
  }

  #flushSoon(): Promise<void> {
    if (this.#flushed) return this.#flushed;
    this.#flushed = new Promise<void>((resolve) => { this.#flushDone = resolve; });
    this.#flushTimer = setTimeout(() => void this.flush(), this.#o.flushMs);
    return this.#flushed;
  }

  #retire(l: KeyLease): void {
    l.retired = true;
    if (this.#live.get(l.key.id) === l) this.#live.delete(l.key.id);
    this.#retired.add(l);
  }

  /** The claim in flight for a key's lease, if any: waiting for it is shorter than a round trip of one's own. */
  claimOf(keyId: string): Promise<void> | null {
    return this.#live.get(keyId)?.claim ?? null;
  }

  /**
   * Asks for more once slots or money are half gone, and then tops both up to full, so the two
   * run out together and one claim serves both.
   */
  #refill(l: KeyLease, now: number, micros: number): void {
    if (l.claim !== null || l.retired || this.#h.down()) return;
    const o = this.#o;
    const left = l.slotsLeft(now);
    const target = micros * o.moneyRequests;
    const slotsOk = l.noSlotsUntil <= now;
    const moneyOk = micros > 0 && l.noMoneyUntil <= now;
    const slotsLow = slotsOk && left * 2 <= o.slots;
    const moneyLow = moneyOk && l.free * 2 < target;
    if (!slotsLow && !moneyLow) return;
    const slots = slotsOk && left < o.slots ? o.slots - left : 0;
    // A lease with no money serves only requests that hold none (on the caller's own provider key).
    const money = moneyOk && l.free < target ? target - Math.max(0, l.free) : 0;
    if (slots === 0 && money === 0) return;
    l.claim = this.#claim(l, now, slots, money, micros).finally(() => { l.claim = null; });
  }

  async #claim(l: KeyLease, now: number, slots: number, money: number, fewest: number): Promise<void> {
    const h = this.#h;
    const key = l.key;
    const day = h.day(now);
    const month = h.month(now);
    const batch = `L${this.#instance}:${++this.#seq}`;
    const until = now + this.#o.periodMs;
    const keys = h.enterKeys(key, day, month);
    try {
      const r = await h.runEnterShaped(SCRIPTS.claim, keys, [now, batch, slots, until, h.rpmOf(key), key.dailyLimit ?? -1,
        key.monthlyBudgetMicros ?? -1, key.id, key.workspaceId, h.minuteTtlMs + this.#o.periodMs, money, fewest, l.holdId,
        now + h.holdTtlMs], key, day, month);
      if (r[0] !== OK) return;
      const [, gotSlots, gotMoney, holdNow] = r as [number, number, number, number];
      if (gotSlots > 0) l.batches.push({ id: batch, day, size: gotSlots, used: 0, until });
      else if (slots > 0) l.noSlotsUntil = now + this.#o.periodMs;
      if (money > 0 && gotMoney === 0) l.noMoneyUntil = now + this.#o.periodMs;
      // Every command sent before this one has answered, and none sent after has run: exact.
      l.amount = holdNow;
    } catch (e) {
      h.failed(e);
    }
  }

  async #giveBackSlots(l: KeyLease, now: number, all: boolean): Promise<void> {
    const due = l.batches.filter((b) => all || b.until <= now);
    if (due.length === 0) return;
    for (const b of due) l.batches.splice(l.batches.indexOf(b), 1);
    await Promise.all(due.filter((b) => b.used < b.size).map(async (b) => {
      try {
        await SCRIPTS.giveBack.run(this.#h.redis, this.#h.slotKeys(l.key, b.day), [b.id, b.used, b.size]);
      } catch (e) {
        // Left counted: the slots leave the window within a minute, the day count is one batch high.
        this.#h.failed(e);
      }
    }));
  }

  async #spend(l: KeyLease): Promise<void> {
    const h = this.#h;
    const cost = l.pending;
    l.pending = 0;
    l.spending += cost;
    const now = h.now();
    const month = h.month(now);
    const keys = h.settleKeys(l.key, month);
    try {
      const r = await h.runSettleShaped(SCRIPTS.spend, keys, [l.holdId, cost, l.key.id, l.key.workspaceId, l.retired ? l.reserved : -1,
        now + h.holdTtlMs], l.key, month);
      l.spending -= cost;
      if (r[0] === OK) l.amount = r[1] as number;
    } catch (e) {
      l.spending -= cost;
      h.failed(e);
      if (cost > 0) h.owe(l.key, cost);
      // The hold lapses with its expiry; a retired lease stops waiting for it.
      if (l.retired && l.inFlight === 0) l.amount = 0;
    }
  }
}
