import { errors } from '../errors/catalog.js';
import { parsePolicyValue, type GuardrailPolicy } from '../lib/guardrail-policy.js';
import type { PromptCacheSetting } from './cache-settings.js';

/** Gateway extensions of an inference request (spec 1): read and removed from the body before the request leaves. */
export interface Extensions {
  optimize: 'price' | 'latency' | 'throughput' | null;
  /** Ordered provider ids the request is pinned to, or null. */
  provider: string[] | null;
  dataPolicy: 'india_only' | 'no_training' | 'zero_retention' | null;
  upstreamKey: string | null;
  /**
   * `cache: "auto"`: the gateway marks long stable prefixes for the provider's prompt cache;
   * `"off"`: it does not, whatever the key, org or config say (docs/cache.md).
   */
  cache: PromptCacheSetting | null;
  /** The request's own guardrail policy (docs/guardrails.md), over its key's, org's and the gateway's. */
  guardrails: GuardrailPolicy | null;
}

const OPTIMIZE = new Set(['price', 'latency', 'throughput']);
const POLICIES = new Set(['india_only', 'no_training', 'zero_retention']);
const EXTENSION_FIELDS = ['optimize', 'provider', 'data_policy', 'upstream_key', 'cache', 'guardrails'] as const;

/** A body that gives none. */
export const NO_EXTENSIONS: Extensions = Object.freeze({ optimize: null, provider: null, dataPolicy: null, upstreamKey: null, cache: null, guardrails: null });

/** The extension members' names, as a scan looks for them. */
export const EXTENSION_NAMES: readonly string[] = EXTENSION_FIELDS;

export function readExtensions(p: Record<string, unknown>): Extensions {
  const ext: Extensions = { optimize: null, provider: null, dataPolicy: null, upstreamKey: null, cache: null, guardrails: null };
  if (p.optimize !== undefined && p.optimize !== null) {
    if (typeof p.optimize !== 'string' || !OPTIMIZE.has(p.optimize)) throw errors.badRequest("Invalid 'optimize': expected price, latency or throughput");
    ext.optimize = p.optimize as Extensions['optimize'];
  }
  if (p.provider !== undefined && p.provider !== null) {
    const list = typeof p.provider === 'string' ? [p.provider] : p.provider;
    if (!Array.isArray(list) || list.length === 0 || !list.every((x) => typeof x === 'string' && x.length > 0)) {
      throw errors.badRequest("Invalid 'provider': expected a provider id or a non-empty array of ids");
    }
    ext.provider = list as string[];
  }
  if (p.data_policy !== undefined && p.data_policy !== null) {
    if (typeof p.data_policy !== 'string' || !POLICIES.has(p.data_policy)) {
      throw errors.badRequest("Invalid 'data_policy': expected india_only, no_training or zero_retention");
    }
    ext.dataPolicy = p.data_policy as Extensions['dataPolicy'];
  }
  if (p.upstream_key !== undefined && p.upstream_key !== null) {
    // Visible ASCII only: the key becomes an upstream header, where a line break would end it.
    if (typeof p.upstream_key !== 'string' || !/^[\x21-\x7e]{8,}$/.test(p.upstream_key)) {
      throw errors.badRequest("Invalid 'upstream_key': expected a provider key string");
    }
    ext.upstreamKey = p.upstream_key;
  }
  if (p.cache !== undefined && p.cache !== null) {
    if (p.cache !== 'auto' && p.cache !== 'off') {
      throw errors.badRequest('Invalid \'cache\': expected "auto" (mark long stable prefixes for the provider\'s prompt cache) or "off"');
    }
    ext.cache = p.cache;
  }
  if (p.guardrails !== undefined && p.guardrails !== null) {
    const parsed = parsePolicyValue(p.guardrails);
    if (parsed.error !== null) throw errors.badRequest(`Invalid 'guardrails': ${parsed.error}`);
    ext.guardrails = parsed.policy;
  }
  // A delete goes to the runtime even for an absent field; most requests carry none of them.
  if (hasExtensionFields(p)) for (const f of EXTENSION_FIELDS) delete p[f];
  return ext;
}

/** Whether any extension field is present (null included). */
function hasExtensionFields(p: Record<string, unknown>): boolean {
  return p.optimize !== undefined || p.provider !== undefined || p.data_policy !== undefined || p.upstream_key !== undefined
    || p.cache !== undefined || p.guardrails !== undefined;
}
