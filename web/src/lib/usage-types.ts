/** The volume fields every usage report row carries (GET /me/activity and /me/usage). */
export interface Volume {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost: number;
}

export interface DayModel extends Volume { day: string; model: string }

export interface Activity {
  from: string;
  to: string;
  totals: Volume;
  /** Usage rows (attempts) in the range: what the events feed and its export list. */
  events: number;
  daily: DayModel[];
  top_models: (Volume & { model: string })[];
  top_keys: (Volume & { id: string; prefix: string | null; name: string | null })[];
  providers: { provider: string; requests: number; cost: number; share: number }[];
}

/** Every IST day from..to inclusive, as YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(from + 'T00:00:00Z'); t <= Date.parse(to + 'T00:00:00Z'); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Requests and spend per day (models summed), with zero days filled in. */
export function perDay(a: Activity, from = a.from, to = a.to): { days: string[]; requests: number[]; cost: number[] } {
  const days = daysBetween(from, to);
  const at = new Map(days.map((d, i) => [d, i]));
  const requests = days.map(() => 0);
  const cost = days.map(() => 0);
  for (const r of a.daily) {
    const i = at.get(r.day);
    if (i === undefined) continue;
    requests[i] += r.requests;
    cost[i] += r.cost;
  }
  return { days, requests, cost: cost.map((c) => Math.round(c * 1e6) / 1e6) };
}
