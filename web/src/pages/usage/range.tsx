import { useEffect, useState } from 'preact/hooks';
import { istDate } from '../../lib/format';
import { navigate, withQuery, type Location } from '../../lib/router';

const DAY_MS = 86_400_000;
/** The widest range GET /me/activity takes. */
export const MAX_SPAN_DAYS = 366;

/** YYYY-MM-DD moved by whole days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(date + 'T00:00:00Z') + days * DAY_MS).toISOString().slice(0, 10);
}

/** Days from..to inclusive. */
export const spanDays = (from: string, to: string): number => Math.round((Date.parse(to + 'T00:00:00Z') - Date.parse(from + 'T00:00:00Z')) / DAY_MS) + 1;

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (v: string): boolean => DATE_RE.test(v) && new Date(Date.parse(v + 'T00:00:00Z')).toISOString().slice(0, 10) === v;

export interface Range {
  /** As sent to the API: the URL's values, or the last 30 days (the API's default) when absent. */
  from: string;
  to: string;
  today: string;
}

/** The page's date range: in the URL (from, to: IST dates), so reload and back keep it. */
export function rangeOf(loc: Location): Range {
  const today = istDate();
  const to = loc.query.get('to') ?? today;
  const from = loc.query.get('from') ?? (isDate(to) ? addDays(to, -29) : addDays(today, -29));
  return { from, to, today };
}

interface Preset { label: string; from: (today: string) => string }
const PRESETS: Preset[] = [
  { label: '7 days', from: (t) => addDays(t, -6) },
  { label: '30 days', from: (t) => addDays(t, -29) },
  { label: '90 days', from: (t) => addDays(t, -89) },
  { label: 'This month', from: (t) => t.slice(0, 8) + '01' },
];

/** What is wrong with a range, in words, or null. */
export function rangeProblem(from: string, to: string): string | null {
  if (!isDate(from)) return 'Choose a start date.';
  if (!isDate(to)) return 'Choose an end date.';
  if (from > to) return 'The start date is after the end date.';
  if (spanDays(from, to) > MAX_SPAN_DAYS) return `A range can span at most ${MAX_SPAN_DAYS} days; this one spans ${spanDays(from, to)}.`;
  return null;
}

/**
 * Presets (7, 30, 90 days, this month, each ending today) and a from/to form. A change is a new
 * history entry, so the browser's back button returns to the previous range.
 */
export function RangePicker(p: { loc: Location; range: Range }) {
  const { range, loc } = p;
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    setFrom(range.from);
    setTo(range.to);
    setProblem(null);
  }, [range.from, range.to]);

  const go = (f: string, t: string) => navigate(withQuery(loc, { from: f, to: t }));
  const apply = (e: Event) => {
    e.preventDefault();
    const why = rangeProblem(from, to);
    setProblem(why);
    if (!why) go(from, to);
  };
  return (
    <div class="card usage-range">
      <div class="usage-preset-box">
      <span class="usage-range-label" id="usage-presets-label">Range</span>
      <div class="usage-presets" role="group" aria-labelledby="usage-presets-label">
        {PRESETS.map((pr) => {
          const on = range.to === range.today && range.from === pr.from(range.today);
          return (
            <button key={pr.label} type="button" class={on ? 'btn btn-small btn-primary' : 'btn btn-small'} aria-pressed={on}
              onClick={() => go(pr.from(range.today), range.today)}>{pr.label}</button>
          );
        })}
      </div>
      </div>
      <form class="usage-range-form" onSubmit={apply} aria-label="Custom date range" noValidate>
        <div class="field">
          <label for="usage-from">From (IST)</label>
          <input id="usage-from" type="date" value={from} max={range.today} onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
            aria-invalid={problem ? 'true' : undefined} aria-describedby={problem ? 'usage-range-problem' : undefined} />
        </div>
        <div class="field">
          <label for="usage-to">To (IST)</label>
          <input id="usage-to" type="date" value={to} max={range.today} onInput={(e) => setTo((e.target as HTMLInputElement).value)}
            aria-invalid={problem ? 'true' : undefined} aria-describedby={problem ? 'usage-range-problem' : undefined} />
        </div>
        <button type="submit" class="btn">Show</button>
      </form>
      {problem && <p id="usage-range-problem" class="error-text" role="alert">{problem}</p>}
    </div>
  );
}
