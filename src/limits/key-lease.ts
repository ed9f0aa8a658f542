import type { KeyRecord } from '../domain/key-record.js';

/** Slots of a key's rolling minute claimed at once: usable until `until`, then the rest go back. */
export interface SlotBatch {
  readonly id: string;
  readonly day: string;
  readonly size: number;
  used: number;
  readonly until: number;
}

/**
 * What this instance holds of one key's limits (lease-keeper.ts): slot batches of the rolling
 * minute and day, and one hold of money. Local state only; every figure here is already counted
 * in Redis, so admitting from it needs no round trip and no other instance can take it.
 */
export class KeyLease {
  readonly batches: SlotBatch[] = [];
  /** The hold's micros as Redis last answered. */
  amount = 0;
  /** Costs of settled requests sent to Redis and not yet answered. */
  spending = 0;
  /** Costs of settled requests not yet sent. */
  pending = 0;
  /** Maximum costs of requests admitted from the lease and still in flight. */
  reserved = 0;
  inFlight = 0;
  lastUsed = 0;
  /** When a claim of slots (or money) last came back empty: not asked again before these times. */
  noSlotsUntil = 0;
  noMoneyUntil = 0;
  /** The claim in flight (lease-keeper.ts), one at a time. */
  claim: Promise<void> | null = null;
  /** Given back (the key's record changed, or the gate closes): admits nothing more. */
  retired = false;

  constructor(readonly key: KeyRecord, readonly holdId: string) {}

  /** Micros free to admit with. */
  get free(): number {
    return this.amount - this.spending - this.pending - this.reserved;
  }

  /** Slots still usable at `now`. */
  slotsLeft(now: number): number {
    let n = 0;
    for (const b of this.batches) if (now < b.until) n += b.size - b.used;
    return n;
  }

  /** Admits one request from the lease when a slot and its maximum cost are both here. */
  take(now: number, micros: number): boolean {
    if (this.retired || (micros > 0 && this.free < micros)) return false;
    for (const b of this.batches) {
      if (b.used < b.size && now < b.until) {
        b.used++;
        this.reserved += micros;
        this.inFlight++;
        this.lastUsed = now;
        return true;
      }
    }
    return false;
  }

  /** A request admitted by take() ended: its hold becomes its cost, to be sent. */
  settle(reservedMicros: number, costMicros: number): void {
    this.reserved -= reservedMicros;
    this.inFlight--;
    this.pending += costMicros;
  }

  /** Nothing left here to give back or wait for. */
  get empty(): boolean {
    return this.inFlight === 0 && this.batches.length === 0 && this.amount === 0 && this.pending === 0 && this.spending === 0 && this.claim === null;
  }
}
