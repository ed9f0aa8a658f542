import type { Change } from '../cluster/change-bus.js';
import type { Logger } from '../lib/logger.js';
import type { GatewayState } from './gateway-state.js';

export interface ChangeHandlers {
  /** A key was revoked or its limits changed: drop it from the cache. */
  key(id: string): void;
  workspace(id: string): void;
  money(orgId: string, eventId: number, amountMicros: number): void;
}

/**
 * Follows what other processes change: the operator CLI and, with several instances, each
 * other. The database's change feed and money events are polled every `everyMs` (the backstop:
 * pub/sub keeps nothing for an instance that was away); the change bus, when there is one,
 * brings the same news within milliseconds. Each handler is idempotent, so hearing a change twice
 * (bus, then poll) does no harm: a money event is applied once per id.
 */
export function changeFollower(state: GatewayState, h: ChangeHandlers, log: Logger, everyMs: number):
  { start(): Promise<void>; poll(): Promise<void>; stop(): void } {
  let seq = 0;
  let moneyId = 0;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let unsubscribe: (() => void) | null = null;
  const read = async (): Promise<void> => {
    for (const c of await state.feed.since(seq)) {
      seq = c.seq;
      if (c.kind === 'key') h.key(c.ref);
      else if (c.kind === 'workspace') h.workspace(c.ref);
    }
    for (const m of await state.feed.moneyEventsSince(moneyId)) {
      moneyId = m.id;
      h.money(m.org_id, m.id, m.amount_micros);
    }
  };
  const poll = (): Promise<void> => (running ??= read()
    .catch((e: unknown) => log.warn('following changes failed; the next poll retries', { err: String(e) }))
    .finally(() => { running = null; }));
  const heard = (c: Change): void => {
    if (c.kind === 'key') h.key(c.id);
    else if (c.kind === 'workspace') h.workspace(c.id);
    else if (c.kind === 'money') h.money(c.orgId, c.eventId, c.amountMicros);
  };
  return {
    async start() {
      seq = await state.feed.latestSeq();
      moneyId = await state.feed.latestMoneyEventId();
      unsubscribe = state.bus?.subscribe(heard) ?? null;
      timer = setInterval(() => void poll(), everyMs);
      timer.unref();
    },
    poll,
    stop() {
      if (timer) clearInterval(timer);
      unsubscribe?.();
    },
  };
}
