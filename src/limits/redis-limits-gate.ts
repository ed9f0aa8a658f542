import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { KeyRecord } from '../domain/key-record.js';
import type { RequestGate, Ticket } from '../domain/request-gate.js';
import { errors } from '../errors/catalog.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { Clock } from '../lib/clock.js';
import { IstCalendar, nextIstMidnight, nextIstMonthStart, secondsUntil } from '../lib/ist.js';
import { RedisScript } from '../cluster/redis-script.js';
import type { AsyncLimitsReader } from './async-limits-reader.js';
import type { KeyLease } from './key-lease.js';
import { LeaseKeeper, type LeaseOptions } from './lease-keeper.js';
import { TRIAL_DAILY, TRIAL_RPM } from './limits-gate.js';
import * as lua from './redis-limits-scripts.js';

/** An in-process gate that answers at once (LimitsGate). */
export interface LocalGate {
  enter(key: KeyRecord): Ticket;
  admit(ticket: Ticket, maxCostMicros: number): void;
  settle(ticket: Ticket, costMicros: number): void;
}

/** What to do while Redis cannot be reached. */
export type RedisOutagePolicy =
  | { mode: 'fail_closed' }
  /** Serve on an in-process gate (a LimitsGate) for at most localForMs from the first failure, then fail closed. */
  | { mode: 'local'; gate: LocalGate; localForMs: number };

export interface RedisLimitsGateOptions {
  /** A connection made by connectRedis() (no offline queue: an outage shows at once). */
  redis: Redis;
  reader: AsyncLimitsReader;
  /** The gateway cap per key per rolling minute (spec 8: 120). */
  gatewayRpm: number;
  clock: Clock;
  ledgerSaturated: () => boolean;
  /** Default fail_closed. */
  outage?: RedisOutagePolicy;
  /**
   * A hold not settled within this long stops counting (an instance that crashed mid-request),
   * default 10 minutes: it must exceed the longest request, or a live request's hold lapses.
   */
  holdTtlMs?: number;
  /** A workspace budget is read again from the database at least this often, default 5 minutes. */
  budgetTtlMs?: number;
  /** Key prefix, default 'gw:' (several gateways may share one Redis under different prefixes). */
  prefix?: string;
  /** Local leases (lease-keeper.ts): most requests of a busy key admitted without a round trip. Unset: none. */
  lease?: LeaseOptions;
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

const DAY_TTL_MS = 2 * 86_400_000;
const MONTH_TTL_MS = 35 * 86_400_000;
const MINUTE_TTL_MS = 61_000;
const MONEY_LOG_TTL_MS = 86_400_000;
/** Costs settled on the local gate during an outage, kept to add to Redis when it returns. */
const MAX_OWED = 100_000;

class RedisTicket implements Ticket {
  admitted = false;
  reservedMicros = 0;
  /** Set when served by the local gate during an outage. */
  local: Ticket | null = null;
  /** Set when admitted from this instance's lease of the key. */
  lease: KeyLease | null = null;
  /** In the day's count (from enter() until admit() refuses it). */
  counted = true;
  constructor(readonly key: KeyRecord, readonly id: string, readonly day: string) {}
}

type Seed =
  | { kind: 'day'; key: string; keyId: string; day: string }
  | { kind: 'trialDay'; key: string; orgId: string; day: string }
  | { kind: 'spend'; key: string; scopeId: string; month: string }
  | { kind: 'budget'; key: string; workspaceId: string }
  | { kind: 'balance'; key: string; orgId: string };

type Reply = [number, ...unknown[]];

const SCRIPTS = {
  enterStandard: new RedisScript(lua.ENTER_STANDARD),
  enterTrial: new RedisScript(lua.ENTER_TRIAL),
  admit: new RedisScript(lua.ADMIT),
  settle: new RedisScript(lua.SETTLE),
  uncount: new RedisScript(lua.UNCOUNT),
  seed: new RedisScript(lua.SEED_IF_ABSENT),
  money: new RedisScript(lua.MONEY_EVENT),
};

/**
 * The limits of LimitsGate (same rules, same errors, same retry-after) kept in Redis, so N
 * gateway instances share one rolling minute, one day count, one balance and one set of holds
 * per key, org and workspace. Each decision is one EVALSHA (redis-limits-scripts.ts).
 *
 * Bounds: rolling-minute and daily caps are exact (the check and the count are one script).
 * Balance and budgets are checked with the hold at admit(), in one script, so concurrent requests
 * on any number of instances overshoot by less than one request's maximum cost, as one box does;
 * a hold lapses after holdTtlMs (a crashed instance's holds block at most that long).
 */
export class RedisLimitsGate implements RequestGate {
  readonly #o: RedisLimitsGateOptions;
  readonly #r: Redis;
  readonly #p: string;
  readonly #holdTtl: number;
  readonly #budgetTtl: number;
  readonly #calendar = new IstCalendar();
  readonly #instance = randomBytes(6).toString('base64url');
  #seq = 0;
  /** When the current outage began (clock ms), or null while Redis answers. */
  #downSince: number | null = null;
  #owed: { key: KeyRecord; cost: number }[] = [];
  readonly #leases: LeaseKeeper | null;

  constructor(o: RedisLimitsGateOptions) {
    if (!(o.gatewayRpm > 0)) throw new Error('RedisLimitsGate: gatewayRpm must be positive');
    if (o.outage?.mode === 'local' && !(o.outage.localForMs >= 0)) throw new Error('RedisLimitsGate: outage.localForMs must be a non-negative number');
    this.#o = o;
    this.#r = o.redis;
    this.#p = o.prefix ?? 'gw:';
    this.#holdTtl = o.holdTtlMs ?? 600_000;
    this.#budgetTtl = o.budgetTtlMs ?? 300_000;
    this.#r.on('ready', () => this.#recovered());
    this.#leases = o.lease ? new LeaseKeeper(this.#leaseHost(), o.lease) : null;
    this.#leases?.start(() => this.#o.clock.now());
  }

  /** Leases held by this instance (tests). */
  get leases(): LeaseKeeper | null {
    return this.#leases;
  }

  /** Gives every lease back and sends every cost (shutdown, after requests drained). */
  async close(): Promise<void> {
    await this.#leases?.close(this.#o.clock.now());
  }

  /** Whether the gate is serving by its outage policy. */
  get degraded(): boolean {
    return this.#downSince !== null;
  }

  async enter(key: KeyRecord): Promise<Ticket> {
    if (this.#o.ledgerSaturated()) throw errors.overloaded();
    const now = this.#o.clock.now();
    const t = new RedisTicket(key, `${this.#instance}:${++this.#seq}`, this.#calendar.day(now));
    if (this.#downSince !== null && this.#r.status !== 'ready') return this.#enterLocally(t, now);
    try {
      await (key.tier === 'trial' ? this.#enterTrial(t, now) : this.#enterStandard(t, now));
    } catch (e) {
      if (isGatewayError(e)) throw e;
      this.#failed(e, now);
      return this.#enterLocally(t, now);
    }
    if (this.#downSince !== null) this.#recovered();
    return t;
  }

  /**
   * enter() and admit() as one decision, one round trip: for a caller that knows the request's
   * maximum cost before asking (admission.ts parses and plans first when the gate has this).
   */
  async enterAdmitted(key: KeyRecord, maxCostMicros: number): Promise<Ticket> {
    if (this.#o.ledgerSaturated()) throw errors.overloaded();
    const now = this.#o.clock.now();
    const t = new RedisTicket(key, `${this.#instance}:${++this.#seq}`, this.#calendar.day(now));
    const micros = key.tier === 'trial' || maxCostMicros <= 0 ? 0 : Math.ceil(maxCostMicros);
    const leases = key.tier === 'standard' ? this.#leases : null;
    if (leases !== null) {
      if (this.#leased(t, leases.admit(key, micros, now), micros)) return t;
      const claim = leases.claimOf(key.id);
      if (claim !== null) {
        await claim;
        if (this.#leased(t, leases.admit(key, micros, this.#o.clock.now(), false), micros)) return t;
      }
    }
    if (this.#downSince !== null && this.#r.status !== 'ready') return this.#admitLocally(t, now, micros);
    try {
      await (key.tier === 'trial' ? this.#enterTrial(t, now) : this.#enterStandard(t, now, micros));
    } catch (e) {
      // Refused by a count that includes this instance's lease, which may have come back meanwhile.
      if (isGatewayError(e) && leases !== null && this.#leased(t, leases.admit(key, micros, this.#o.clock.now(), false), micros)) return t;
      if (isGatewayError(e)) throw e;
      this.#failed(e, now);
      return this.#admitLocally(t, now, micros);
    }
    if (this.#downSince !== null) this.#recovered();
    t.admitted = true;
    t.reservedMicros = micros;
    return t;
  }

  #leased(t: RedisTicket, lease: KeyLease | null, micros: number): boolean {
    if (lease === null) return false;
    t.lease = lease;
    t.admitted = true;
    t.reservedMicros = micros;
    return true;
  }

  admit(ticket: Ticket, maxCostMicros: number): void | Promise<void> {
    const t = ticket as RedisTicket;
    if (t.local) {
      this.#localGate().admit(t.local, maxCostMicros);
      t.admitted = true;
      return;
    }
    // Trial keys and routes on the caller's own provider key hold nothing: their day was counted at enter().
    if (t.key.tier === 'trial' || maxCostMicros <= 0) {
      t.admitted = true;
      return;
    }
    return this.#admit(t, Math.ceil(maxCostMicros));
  }

  /** Returns a promise that never rejects (for tests and shutdown); callers need not wait. */
  settle(ticket: Ticket, costMicros: number): Promise<void> {
    const t = ticket as RedisTicket;
    const cost = Math.round(costMicros);
    if (t.lease) {
      const lease = t.lease;
      t.lease = null;
      const held = t.reservedMicros;
      t.reservedMicros = 0;
      return this.#leases!.settle(lease, held, cost);
    }
    if (t.local) {
      this.#localGate().settle(t.local, costMicros);
      t.local = null;
      if (cost > 0) this.#owe(t.key, cost);
      return Promise.resolve();
    }
    if (!t.admitted) return t.counted ? this.#uncount(t) : Promise.resolve();
    const held = t.reservedMicros;
    t.reservedMicros = 0;
    if (held === 0 && cost === 0) return Promise.resolve();
    return this.#settle(t.key, held > 0 ? t.id : '', cost).catch((e: unknown) => {
      this.#failed(e, this.#o.clock.now());
      // The hold lapses with its expiry; the spend is added when Redis is back.
      if (cost > 0) this.#owe(t.key, cost);
    });
  }

  /**
   * A credit or payment recorded in the database (money event): applied to the shared balance
   * once per event id, whichever instances deliver it. True when this call applied it.
   */
  async applyMoneyEvent(orgId: string, eventId: number, amountMicros: number): Promise<boolean> {
    const r = await SCRIPTS.money.run(this.#r, [this.#key('b:', orgId), this.#key('me:', orgId)], [eventId, Math.round(amountMicros), MONEY_LOG_TTL_MS]);
    return r === 1;
  }

  /** A workspace's budget changed: every instance reads the new figure from Redis from now on. */
  async reloadWorkspace(workspaceId: string): Promise<void> {
    const budget = await this.#o.reader.workspaceBudget(workspaceId);
    await this.#r.set(this.#key('wb:', workspaceId), budget === null ? 'n' : String(budget), 'PX', this.#budgetTtl);
    this.#leases?.retireWorkspace(workspaceId);
  }

  #key(kind: string, id: string, period?: string): string {
    return period === undefined ? `${this.#p}${kind}${id}` : `${this.#p}${kind}${id}:${period}`;
  }

  async #enterStandard(t: RedisTicket, now: number, holdMicros = 0): Promise<void> {
    const key = t.key;
    const month = this.#calendar.month(now);
    const rpm = this.#rpmOf(key);
    const keys = this.#enterKeys(key, t.day, month);
    const args = [now, t.id, rpm, key.dailyLimit ?? -1, key.monthlyBudgetMicros ?? -1, key.id, key.workspaceId, MINUTE_TTL_MS,
      holdMicros, now + this.#holdTtl];
    const r = await this.#run(SCRIPTS.enterStandard, keys, args, (i) => this.#standardSeed(i, keys, key, t.day, month));
    if (r[0] !== lua.OK) throw this.#refusal(r, key, rpm, now);
  }

  #rpmOf(key: KeyRecord): number {
    return key.rpmLimit !== null && key.rpmLimit < this.#o.gatewayRpm ? key.rpmLimit : this.#o.gatewayRpm;
  }

  #enterKeys(key: KeyRecord, day: string, month: string): string[] {
    return [
      this.#key('m:', key.id), this.#key('d:', key.id, day), this.#key('b:', key.orgId), this.#key('s:', key.id, month),
      this.#key('h:', key.orgId), this.#key('ha:', key.orgId), this.#key('wb:', key.workspaceId), this.#key('s:', key.workspaceId, month),
    ];
  }

  #settleKeys(key: KeyRecord, month: string): string[] {
    return [
      this.#key('b:', key.orgId), this.#key('s:', key.id, month), this.#key('h:', key.orgId), this.#key('ha:', key.orgId),
      this.#key('s:', key.workspaceId, month),
    ];
  }

  /** A settle-shaped script's missing KEYS index i: where its figure comes from. */
  #settleSeed(i: number, keys: string[], key: KeyRecord, month: string): Seed {
    return i === 1
      ? { kind: 'balance', key: keys[0], orgId: key.orgId }
      : { kind: 'spend', key: keys[i - 1], scopeId: i === 2 ? key.id : key.workspaceId, month };
  }

  #leaseHost() {
    return {
      redis: this.#r,
      rpmOf: (key: KeyRecord) => this.#rpmOf(key),
      enterKeys: (key: KeyRecord, day: string, month: string) => this.#enterKeys(key, day, month),
      slotKeys: (key: KeyRecord, day: string): [string, string] => [this.#key('m:', key.id), this.#key('d:', key.id, day)],
      settleKeys: (key: KeyRecord, month: string) => this.#settleKeys(key, month),
      runEnterShaped: (script: RedisScript, keys: string[], args: (string | number)[], key: KeyRecord, day: string, month: string) =>
        this.#run(script, keys, args, (i) => this.#standardSeed(i, keys, key, day, month)),
      runSettleShaped: (script: RedisScript, keys: string[], args: (string | number)[], key: KeyRecord, month: string) =>
        this.#run(script, keys, args, (i) => this.#settleSeed(i, keys, key, month)),
      now: () => this.#o.clock.now(),
      day: (now: number) => this.#calendar.day(now),
      month: (now: number) => this.#calendar.month(now),
      minuteTtlMs: MINUTE_TTL_MS,
      holdTtlMs: this.#holdTtl,
      down: () => this.#downSince !== null,
      failed: (e: unknown) => this.#failed(e, this.#o.clock.now()),
      owe: (key: KeyRecord, cost: number) => this.#owe(key, cost),
    };
  }

  async #enterTrial(t: RedisTicket, now: number): Promise<void> {
    const key = t.key;
    const rpm = Math.min(key.rpmLimit ?? TRIAL_RPM, TRIAL_RPM, this.#o.gatewayRpm);
    const daily = Math.min(key.dailyLimit ?? TRIAL_DAILY, TRIAL_DAILY);
    const keys = [this.#key('m:', key.id), this.#key('d:', key.id, t.day), this.#key('tm:', key.orgId), this.#key('td:', key.orgId, t.day)];
    const args = [now, t.id, rpm, daily, TRIAL_RPM, TRIAL_DAILY, MINUTE_TTL_MS];
    const r = await this.#run(SCRIPTS.enterTrial, keys, args, (i): Seed => i === 2
      ? { kind: 'day', key: keys[1], keyId: key.id, day: t.day }
      : { kind: 'trialDay', key: keys[3], orgId: key.orgId, day: t.day });
    if (r[0] !== lua.OK) throw this.#refusal(r, key, rpm, now, daily);
  }

  async #admit(t: RedisTicket, micros: number): Promise<void> {
    const key = t.key;
    const now = this.#o.clock.now();
    const month = this.#calendar.month(now);
    const keys = [
      this.#key('b:', key.orgId), this.#key('s:', key.id, month), this.#key('h:', key.orgId), this.#key('ha:', key.orgId),
      this.#key('wb:', key.workspaceId), this.#key('s:', key.workspaceId, month), this.#key('m:', key.id), this.#key('d:', key.id, t.day),
    ];
    const args = [now, t.id, micros, now + this.#holdTtl, key.id, key.workspaceId, key.monthlyBudgetMicros ?? -1];
    let r: Reply;
    try {
      r = await this.#run(SCRIPTS.admit, keys, args, (i): Seed => {
        switch (i) {
          case 1: return { kind: 'balance', key: keys[0], orgId: key.orgId };
          case 2: return { kind: 'spend', key: keys[1], scopeId: key.id, month };
          case 5: return { kind: 'budget', key: keys[4], workspaceId: key.workspaceId };
          default: return { kind: 'spend', key: keys[5], scopeId: key.workspaceId, month };
        }
      });
    } catch (e) {
      if (isGatewayError(e)) throw e;
      this.#failed(e, now);
      // Entered on Redis, which is now gone: hold on the local gate if the policy allows it.
      const local = this.#localFor(now);
      const lt = local.enter(key);
      local.admit(lt, micros);
      t.local = lt;
      t.admitted = true;
      return;
    }
    if (r[0] !== lua.OK) {
      t.counted = false;
      throw this.#refusal(r, key, 0, now);
    }
    t.admitted = true;
    t.reservedMicros = micros;
  }

  async #settle(key: KeyRecord, holdId: string, cost: number, owed = false): Promise<void> {
    const month = this.#calendar.month(this.#o.clock.now());
    const keys = this.#settleKeys(key, month);
    await this.#run(SCRIPTS.settle, keys, [holdId, cost, key.id, key.workspaceId, owed ? '1' : '0'], (i) => this.#settleSeed(i, keys, key, month));
  }

  /** A request counted at enter() but never admitted (its body was refused, or admit() refused it). */
  async #uncount(t: RedisTicket): Promise<void> {
    const key = t.key;
    const keys = [this.#key('d:', key.id, t.day)];
    if (key.tier === 'trial') keys.push(this.#key('td:', key.orgId, t.day));
    try {
      await SCRIPTS.uncount.run(this.#r, keys, []);
    } catch (e) {
      // At most one request too many in the day's count.
      this.#failed(e, this.#o.clock.now());
    }
  }

  /** KEYS index i of the standard enter script: where its missing figure comes from. */
  #standardSeed(i: number, keys: string[], key: KeyRecord, day: string, month: string): Seed {
    switch (i) {
      case 2: return { kind: 'day', key: keys[1], keyId: key.id, day };
      case 3: return { kind: 'balance', key: keys[2], orgId: key.orgId };
      case 4: return { kind: 'spend', key: keys[3], scopeId: key.id, month };
      case 7: return { kind: 'budget', key: keys[6], workspaceId: key.workspaceId };
      default: return { kind: 'spend', key: keys[7], scopeId: key.workspaceId, month };
    }
  }

  /** Runs a script, seeding what it reports missing from the database and running it again. */
  async #run(script: RedisScript, keys: string[], args: (string | number)[], seedOf: (i: number) => Seed): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      const r = await script.run(this.#r, keys, args) as Reply;
      if (r[0] !== lua.SEED) return r;
      // A seed that vanished again at once (eviction under memory pressure) is a fault, not a loop.
      if (attempt === 3) throw new Error('Redis does not keep the limits it is given (maxmemory eviction?)');
      await this.#seed((r[1] as number[]).map(seedOf));
    }
  }

  async #seed(seeds: Seed[]): Promise<void> {
    const rd = this.#o.reader;
    const plain: Seed[] = [];
    let balance: (Seed & { kind: 'balance' }) | null = null;
    for (const s of seeds) if (s.kind === 'balance') balance = s; else plain.push(s);
    const [values, snap] = await Promise.all([
      Promise.all(plain.map(async (s): Promise<[string, number]> => {
        switch (s.kind) {
          case 'day': return [String(await rd.keyDailyCount(s.keyId, s.day)), DAY_TTL_MS];
          case 'trialDay': return [String(await rd.orgTrialDailyCount(s.orgId, s.day)), DAY_TTL_MS];
          case 'spend': return [String(await rd.monthlySpend(s.scopeId, s.month)), MONTH_TTL_MS];
          case 'budget': {
            const b = await rd.workspaceBudget(s.workspaceId);
            return [b === null ? 'n' : String(b), this.#budgetTtl];
          }
          default: throw new Error('unreachable');
        }
      })),
      balance ? rd.orgBalance(balance.orgId) : null,
    ]);
    const keys = plain.map((s) => s.key);
    const args: (string | number)[] = [plain.length];
    for (const [v, ttl] of values) args.push(v, ttl);
    if (balance) {
      keys.push(balance.key, this.#key('me:', balance.orgId));
      args.push(Math.round(snap?.balanceMicros ?? 0), snap?.moneyEventId ?? 0);
    }
    await SCRIPTS.seed.run(this.#r, keys, args);
  }

  #refusal(r: Reply, key: KeyRecord, rpm: number, now: number, daily?: number): GatewayError {
    const retry = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
    switch (r[0]) {
      case lua.RPM: {
        const byKey = rpm < this.#o.gatewayRpm;
        const which = byKey ? `key limit of ${rpm} requests per minute` : `gateway cap of ${rpm} requests per minute per key`;
        return errors.rateLimitExceeded(retry(r[1] as number), which);
      }
      case lua.DAILY: return errors.dailyLimitReached(secondsUntil(now, nextIstMidnight(now)), daily ?? key.dailyLimit!);
      case lua.TRIAL_RPM_HIT:
        return errors.rateLimitExceeded(retry(r[1] as number), `trial allowance of ${TRIAL_RPM} requests per minute per organisation`);
      case lua.TRIAL_DAILY_HIT:
        return errors.dailyLimitReached(secondsUntil(now, nextIstMidnight(now)), TRIAL_DAILY, ' per organisation on trial keys');
      case lua.CREDITS: return errors.insufficientCredits();
      case lua.KEY_BUDGET: return errors.budgetExceeded(secondsUntil(now, nextIstMonthStart(now)), 'the key\'s monthly budget');
      case lua.WS_BUDGET: return errors.budgetExceeded(secondsUntil(now, nextIstMonthStart(now)), 'the workspace\'s monthly budget');
      default: return errors.internal();
    }
  }

  #failed(e: unknown, now: number): void {
    if (this.#downSince === null) {
      this.#downSince = now;
      this.#o.log?.warn('shared limits: Redis unreachable', { err: String(e), policy: this.#o.outage?.mode ?? 'fail_closed' });
    }
  }

  /** Redis answers again: back to it, and what was spent on local limits meanwhile is added. */
  #recovered(): void {
    this.#downSince = null;
    const owed = this.#owed;
    this.#owed = [];
    for (const o of owed) {
      this.#settle(o.key, '', o.cost, true).catch((e: unknown) => {
        this.#failed(e, this.#o.clock.now());
        if (this.#owed.length < MAX_OWED) this.#owed.push(o);
      });
    }
  }

  #owe(key: KeyRecord, cost: number): void {
    if (this.#downSince === null && this.#r.status === 'ready') {
      // Back already (a long request served locally ended after the outage): add it now.
      this.#settle(key, '', cost, true).catch((e: unknown) => {
        this.#failed(e, this.#o.clock.now());
        if (this.#owed.length < MAX_OWED) this.#owed.push({ key, cost });
      });
    } else if (this.#owed.length < MAX_OWED) this.#owed.push({ key, cost });
  }

  /** Costs not yet added to Redis (tests). */
  get owedCount(): number {
    return this.#owed.length;
  }

  #localGate(): LocalGate {
    const o = this.#o.outage;
    if (o?.mode !== 'local') throw errors.limitsUnavailable();
    return o.gate;
  }

  /** The local gate while the policy still allows it, else 503 unavailable. */
  #localFor(now: number): LocalGate {
    const o = this.#o.outage;
    if (o?.mode !== 'local' || this.#downSince === null || now - this.#downSince >= o.localForMs) throw errors.limitsUnavailable();
    return o.gate;
  }

  #admitLocally(t: RedisTicket, now: number, micros: number): Ticket {
    const local = this.#localFor(now);
    const lt = local.enter(t.key);
    local.admit(lt, micros);
    t.local = lt;
    t.admitted = true;
    return t;
  }

  #enterLocally(t: RedisTicket, now: number): Ticket {
    const local = this.#localFor(now);
    t.local = local.enter(t.key);
    return t;
  }
}
