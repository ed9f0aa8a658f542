import type { KeyRecord } from '../domain/key-record.js';

/** A request admitted by the gate; carries whatever it reserved until settled. */
export interface Ticket {
  readonly key: KeyRecord;
  reservedMicros: number;
}

/**
 * Limits and money on the hot path, all in memory: enter() checks the per-minute, daily and
 * credit rules and counts the request; reserve() holds the request's maximum cost against budgets
 * and balance; settle() replaces the hold with the true cost. Throws GatewayErrors (429, 402).
 */
export interface RequestGate {
  enter(key: KeyRecord): Ticket;
  reserve(ticket: Ticket, maxCostMicros: number): void;
  settle(ticket: Ticket, costMicros: number): void;
}
