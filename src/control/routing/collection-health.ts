import type { Catalog } from '../../catalog/catalog.js';
import { chainRoutes } from '../../catalog/chain-routes.js';
import type { ChainStep } from '../../domain/chain.js';
import { DAY_MS, istDay, istDaysBetween } from '../../lib/ist.js';
import { p95 } from '../../lib/stats.js';

/** One canary's result, as the monitoring store keeps it. */
export interface CanaryResult {
  /** The route's id, provider:upstreamModel. */
  route: string;
  at: number;
  ok: boolean;
  latency_ms: number;
  error: string | null;
}

/** One IST calendar day of a step's canaries. */
export interface DayHealth {
  day: string;
  canaries: number;
  uptime: number | null;
  p95_latency_ms: number | null;
}

export interface StepHealth {
  route: string;
  provider: string;
  model: string;
  upstream_model: string;
  canaries: number;
  /** Share of canaries that succeeded, 0..1; null without canaries. */
  uptime: number | null;
  p95_latency_ms: number | null;
  last_canary: { at: string; ok: boolean; latency_ms: number; error: string | null } | null;
  /** Every IST day the window touches, oldest first, so a chart has a time axis; days without canaries are null. */
  daily: DayHealth[];
}

export interface CollectionHealth {
  days: number;
  since: string;
  canaries: number;
  error_rate: number | null;
  p95_latency_ms: number | null;
  steps: StepHealth[];
}

/** Per-step uptime, p95 latency (successful canaries) and last canary, and the same across the collection. */
export function collectionHealth(catalog: Catalog, steps: readonly ChainStep[], canaries: readonly CanaryResult[], days: number, since: number): CollectionHealth {
  const dayList = istDaysBetween(since, since + days * DAY_MS);
  const byRoute = new Map<string, CanaryResult[]>();
  for (const c of canaries) {
    let list = byRoute.get(c.route);
    if (list === undefined) byRoute.set(c.route, (list = []));
    list.push(c);
  }
  const failed = canaries.filter((c) => !c.ok).length;
  return {
    days,
    since: new Date(since).toISOString(),
    canaries: canaries.length,
    error_rate: canaries.length === 0 ? null : failed / canaries.length,
    p95_latency_ms: p95(canaries.filter((c) => c.ok).map((c) => c.latency_ms)),
    steps: chainRoutes(catalog, steps).map(({ route: r, model }) => {
      const list = byRoute.get(r.id) ?? [];
      const last = list.at(-1);
      return {
        route: r.id, provider: r.provider.id, model, upstream_model: r.upstreamModel, canaries: list.length,
        uptime: list.length === 0 ? null : list.filter((c) => c.ok).length / list.length,
        p95_latency_ms: p95(list.filter((c) => c.ok).map((c) => c.latency_ms)),
        last_canary: last ? { at: new Date(last.at).toISOString(), ok: last.ok, latency_ms: last.latency_ms, error: last.error } : null,
        daily: perDay(dayList, list),
      };
    }),
  };
}

/** A step's canaries (oldest first) bucketed into the given IST days. */
function perDay(days: readonly string[], list: readonly CanaryResult[]): DayHealth[] {
  const byDay = new Map<string, CanaryResult[]>();
  for (const c of list) {
    const d = istDay(c.at);
    let bucket = byDay.get(d);
    if (bucket === undefined) byDay.set(d, (bucket = []));
    bucket.push(c);
  }
  return days.map((day) => {
    const b = byDay.get(day) ?? [];
    return {
      day, canaries: b.length, uptime: b.length === 0 ? null : b.filter((c) => c.ok).length / b.length,
      p95_latency_ms: p95(b.filter((c) => c.ok).map((c) => c.latency_ms)),
    };
  });
}
