/** The gateway's collection shapes (src/control/routing/collection-routes.ts, monitoring/monitoring-routes.ts). */

export interface Step { model: string; provider: string | null }
export interface ExpandedRoute { provider: string; model: string; upstream_model: string; configured: boolean }

/** A collection as the public registry shows it (GET /v1/collections). */
export interface PublicCollection {
  slug: string;
  name: string;
  model: string;
  steps: Step[];
  routes: ExpandedRoute[];
  readme_md: string;
  version: number;
  stars: number;
  forked_from: string | null;
  created_at: string;
  updated_at: string;
}

/** One of the active org's own collections (GET /me/collections). */
export interface OrgCollection extends PublicCollection {
  id: string;
  public: boolean;
  starred: boolean;
  monitored: boolean;
}

export interface Version { version: number; name: string; model: string; steps: Step[]; readme_md: string; created_at: string }

/** One collection as the active org sees it (GET /me/collections/:slug); id null: another org's. */
export interface SeenCollection extends PublicCollection {
  id: string | null;
  public: boolean;
  starred: boolean;
  monitored: boolean | null;
  versions: Version[];
}

export type { CatalogModel } from '../../lib/catalog';

export interface DayHealth { day: string; canaries: number; uptime: number | null; p95_latency_ms: number | null }
export interface StepHealth {
  route: string;
  provider: string;
  model: string;
  upstream_model: string;
  canaries: number;
  uptime: number | null;
  p95_latency_ms: number | null;
  last_canary: { at: string; ok: boolean; latency_ms: number; error: string | null } | null;
  daily: DayHealth[];
}
export interface Health {
  slug: string;
  monitored: boolean;
  days: number;
  since: string;
  canaries: number;
  error_rate: number | null;
  p95_latency_ms: number | null;
  steps: StepHealth[];
}

export interface Alert {
  id: string;
  metric: 'error_rate' | 'latency_p95' | string;
  threshold: number;
  window_minutes: number;
  target: { webhook?: string; email?: string };
  firing: boolean;
  last_value: number | null;
  last_fired_at: string | null;
  last_delivery: string | null;
  created_at: string;
}
