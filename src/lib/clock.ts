/** Wall-clock source, injectable so day/month boundaries can be tested. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that starts at a fixed instant and moves only when told (tests and GW_TEST_CLOCK). */
export function manualClock(startMs: number): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = startMs;
  return {
    now: () => t,
    advance: (ms) => { t += ms; },
    set: (ms) => { t = ms; },
  };
}

/** Real time shifted so that it reads `startMs` at creation (GW_CLOCK_START: tests at IST midnight). */
export function offsetClock(startMs: number): Clock {
  const delta = startMs - Date.now();
  return { now: () => Date.now() + delta };
}
