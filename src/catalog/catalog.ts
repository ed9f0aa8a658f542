import type { InProcessAnswer } from '../providers/types.js';
import type { ModelEntry, ProviderEntry } from './schema.js';

export type ModelKind = ModelEntry['kind'];

/** A provider as this deployment sees it: catalog entry plus configured base URL and credential. */
export interface Provider {
  readonly entry: ProviderEntry;
  readonly id: string;
  readonly baseUrl: string;
  /** Platform key for this provider, or null (then only keyless kinds are usable). */
  readonly apiKey: string | null;
  /** Usable with the platform's own credential. */
  readonly configured: boolean;
  /** Not turned off by the operator (providers.<id>.enabled): callers' own keys may use it. */
  readonly enabled: boolean;
  /** Connections may reach public addresses only, checked as each is made (an org's registered endpoint). */
  readonly publicOnly?: boolean;
  /** Its adapter's in-process answer (the sandbox), read once here so a request checks one field; null: reached over the network. */
  readonly inProcess: InProcessAnswer | null;
}

/** The context window assumed for a model the catalog does not list: above any model's today (the largest, Llama 4 Scout, is 10M). */
export const UNKNOWN_CONTEXT = 16_777_216;

/** One way to serve a model: a provider plus that provider's model id. */
export interface Route {
  /** Stable id `provider:upstreamModel`, also the circuit breaker's name. */
  readonly id: string;
  readonly provider: Provider;
  readonly upstreamModel: string;
  /**
   * Micro-rupees per billed unit, derived once from the catalog price: per token from ₹ per 1M
   * tokens (1 ₹/1M = 1 micro-rupee each), per character from ₹ per 1M characters (speech), per
   * second of audio from ₹ per minute (transcription).
   */
  readonly inputMicrosPerUnit: number;
  readonly outputMicrosPerUnit: number;
  /** Micro-rupees per input token read from the prompt cache (the catalog's cachedInput, else input). */
  readonly cachedInputMicrosPerUnit: number;
  /** Micro-rupees per input token written to the prompt cache (the catalog's cacheWrite, else input). */
  readonly cacheWriteMicrosPerUnit: number;
  readonly priceInr: { input: number; output: number; cachedInput?: number; cacheWrite?: number };
  /**
   * The model's context window in tokens (the catalog's contextLength; UNKNOWN_CONTEXT for a
   * model the catalog does not list): the most a provider's usage report is believed.
   */
  readonly contextLength: number;
  /**
   * Not in the catalog: a `provider/model-id` a caller addressed on its own key. Such routes are
   * made per request, so their breakers are kept in a bounded cache and they keep no statistics.
   */
  readonly direct: boolean;
}

export interface Model {
  readonly entry: ModelEntry;
  readonly id: string;
  readonly kind: ModelKind;
  /** Every route in catalog order, configured or not (the catalog shows them all). */
  readonly routes: readonly Route[];
  /** The routes this deployment can call with its own credentials, in catalog order. */
  readonly usableRoutes: readonly Route[];
}

export interface Catalog {
  readonly providers: ReadonlyMap<string, Provider>;
  readonly models: ReadonlyMap<string, Model>;
  /** All routes by id, for breakers and health. */
  readonly routes: ReadonlyMap<string, Route>;
}
