/**
 * Indian Standard Time calendar: UTC+05:30 with no daylight saving, so day and month windows
 * are plain arithmetic on a fixed offset (DESIGN.md, Time).
 */
export const IST_OFFSET_MS = (5 * 60 + 30) * 60_000;
export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of the IST calendar day containing the instant. */
export function istDay(ms: number): string {
  return new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM` of the IST calendar month containing the instant. */
export function istMonth(ms: number): string {
  return new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 7);
}

/** The UTC instant of the next IST midnight after `ms`. */
export function nextIstMidnight(ms: number): number {
  const local = ms + IST_OFFSET_MS;
  return local - (((local % DAY_MS) + DAY_MS) % DAY_MS) + DAY_MS - IST_OFFSET_MS;
}

/** The UTC instant at which the next IST calendar month begins. */
export function nextIstMonthStart(ms: number): number {
  const d = new Date(ms + IST_OFFSET_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - IST_OFFSET_MS;
}

/** The UTC instant at which the IST day `YYYY-MM-DD` begins. */
export function istDayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) - IST_OFFSET_MS;
}

/** The IST calendar day of an instant as a day number (days since 1970-01-01 IST): the usage rollup's day. */
export function istDayNumber(ms: number): number {
  return Math.floor((ms + IST_OFFSET_MS) / DAY_MS);
}

/** `YYYY-MM-DD` of an IST day number. */
export function istDayLabel(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The UTC instant at which IST day number `day` begins. */
export function istDayNumberStart(day: number): number {
  return day * DAY_MS - IST_OFFSET_MS;
}

/** The IST calendar days from the one holding `from` to the one holding `to`, as `YYYY-MM-DD`. */
export function istDaysBetween(from: number, to: number): string[] {
  const out: string[] = [];
  for (let t = istDayStart(istDay(from)); t <= to; t += DAY_MS) out.push(istDay(t));
  return out;
}

/** Whole seconds from `now` until `at`, at least 1 (for retry-after). */
export function secondsUntil(now: number, at: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/**
 * The current IST day and month labels, recomputed only when the clock passes the next IST
 * midnight: formatting a Date on every request showed up in profiles of the hot path.
 */
export class IstCalendar {
  #day = '';
  #month = '';
  #from = Number.POSITIVE_INFINITY;
  #until = Number.NEGATIVE_INFINITY;

  #roll(now: number): void {
    if (now >= this.#from && now < this.#until) return;
    this.#day = istDay(now);
    this.#month = this.#day.slice(0, 7);
    this.#until = nextIstMidnight(now);
    this.#from = this.#until - DAY_MS;
  }

  day(now: number): string {
    this.#roll(now);
    return this.#day;
  }

  month(now: number): string {
    this.#roll(now);
    return this.#month;
  }
}
