import { api } from './api';

// GET /v1/models as the pages read it (src/control/model-list.ts), one shape for every page.

/** ₹ per million tokens (or per unit, for audio). */
export interface Price { input: number; output: number }

export interface CatalogRoute {
  provider: string;
  upstream_model: string;
  residency: string;
  configured: boolean;
  health: string;
  pricing: Price;
}

export interface CatalogModel {
  id: string;
  name: string;
  kind: string;
  available: boolean;
  pricing: Price;
  routes: CatalogRoute[];
}

/** The catalog's models, in its order. */
export const catalogModels = (): Promise<CatalogModel[]> => api.get<{ data: CatalogModel[] }>('/v1/models').then((r) => r.data);
