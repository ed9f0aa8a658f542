import type { KeyRecord } from './key-record.js';

/** A request let in by the gate; carries what it holds until settled. */
export interface Ticket {
  readonly key: KeyRecord;
  admitted: boolean;
  reservedMicros: number;
}

/**
 * Limits and money on the hot path, in memory (LimitsGate) or shared by every instance on Redis
 * (RedisLimitsGate, whose enter() and admit() answer with a promise; callers await only a promise,
 * so the in-memory gate costs no extra turn). enter() applies the per-minute, daily,
 * credit and budget rules and counts the request in the rolling minute; admit() counts it for
 * the day and holds its maximum cost against balance and budgets once it is known to be
 * routable; settle() replaces the hold with the true cost. Throws GatewayErrors (429, 402, 503).
 */
export interface RequestGate {
  enter(key: KeyRecord): Ticket | Promise<Ticket>;
  admit(ticket: Ticket, maxCostMicros: number): void | Promise<void>;
  /**
   * enter() and admit() in one decision, given by a gate for which each call is a round trip
   * (RedisLimitsGate): the caller then parses and plans first, and calls enter() only to find
   * which answer wins when its own parsing refuses the request.
   */
  enterAdmitted?(key: KeyRecord, maxCostMicros: number): Promise<Ticket>;
  /** Never throws; a shared gate settles in the background. */
  settle(ticket: Ticket, costMicros: number): void;
}
