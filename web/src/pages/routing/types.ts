// The shapes of the public API this area reads (src/control/byok/byok-routes.ts, routing/routing-routes.ts,
// endpoint-routes.ts and GET /v1/models), as far as the pages use them.

export type { CatalogModel, CatalogRoute } from '../../lib/catalog';

export interface ChainStep { model: string; provider: string | null }
export interface ChainRoute { provider: string; model: string; upstream_model: string; configured: boolean }
export interface Chain { model: string; steps: ChainStep[]; routes: ChainRoute[]; updated_at: string }

export interface SavedKey {
  provider: string; key: string; label: string | null; always_use: boolean; models: number; verified_at: string; updated_at: string;
}
export interface ByokProvider { provider: string; name: string; residency: string; saved: SavedKey | null }
export interface KeyTest { provider: string; result: 'ok' | 'rejected' | 'unreachable'; message: string | null; models: number | null; checked_at: string }
export interface DiscoveredModels { provider: string; data: { id: string; model: string }[] }

export interface ComplianceCheck { name: string; ok: boolean; detail: string }
export interface ComplianceReport { status: string; models: string[]; checks: ComplianceCheck[] }
export interface Endpoint {
  id: string; name: string; base_url: string; key: string | null; compliance: ComplianceReport; tested_at: string; created_at: string;
}

/** Where a provider runs, in words (the catalog's residency codes). */
export const RESIDENCY: Record<string, string> = { in: 'India', us: 'United States', eu: 'Europe', local: 'inside the gateway' };
export const residency = (r: string): string => RESIDENCY[r] ?? r;
