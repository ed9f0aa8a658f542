import type { KeyRecord } from './key-record.js';

/** A request let in by the gate; carries what it holds until settled. */
export interface Ticket {
  readonly key: KeyRecord;
  admitted: boolean;
  reservedMicros: number;
}

/**
 * Limits and money on the hot path, all in memory. enter() applies the per-minute, daily,
 * credit and budget rules and counts the request in the rolling minute; admit() counts it for
 * the day and holds its maximum cost against balance and budgets once it is known to be
 * routable; settle() replaces the hold with the true cost. Throws GatewayErrors (429, 402, 503).
 */
export interface RequestGate {
  enter(key: KeyRecord): Ticket;
  admit(ticket: Ticket, maxCostMicros: number): void;
  settle(ticket: Ticket, costMicros: number): void;
}
