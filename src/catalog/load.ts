import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../config/load.js';
import { CatalogFile } from './schema.js';
import { MICROS_PER_INR } from '../lib/money.js';
import { adapterFor } from '../providers/registry.js';
import type { Endpoint } from '../providers/types.js';
import type { Catalog, Model, ModelKind, Provider, Route } from './catalog.js';

const AUDIO_KINDS: ReadonlySet<string> = new Set(['transcription', 'speech']);
const ENDPOINT_OF: Record<ModelKind, Endpoint> = { chat: 'chat', embedding: 'embeddings', transcription: 'transcriptions', speech: 'speech' };

export const DEFAULT_CATALOG_PATH = fileURLToPath(new URL('../../../catalog.json', import.meta.url));

/**
 * Reads and validates the catalog file, then resolves it against the configuration: each
 * provider's base URL (config wins over the file) and its platform key (config, then the
 * environment variable the catalog names). Done once at start; the result is immutable.
 */
export function loadCatalog(config: Readonly<Config>, env: NodeJS.ProcessEnv = process.env): Catalog {
  const path = config.catalogFile ?? DEFAULT_CATALOG_PATH;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError(`cannot load catalog ${path}: ${(e as Error).message}`);
  }
  const bad = Value.Errors(CatalogFile, data).First();
  if (bad) throw new ConfigError(`invalid catalog ${path} at ${bad.path}: ${bad.message}`);
  const file = data as CatalogFile;

  const providers = new Map<string, Provider>();
  for (const entry of file.providers) {
    if (providers.has(entry.id)) throw new ConfigError(`invalid catalog ${path}: provider '${entry.id}' is listed twice`);
    // custom/<endpoint>/<model> addresses orgs' registered endpoints.
    if (entry.id === 'custom') throw new ConfigError(`invalid catalog ${path}: provider id 'custom' is reserved`);
    const override = config.providers[entry.id] ?? {};
    const apiKey = override.apiKey ?? (entry.keyEnv ? env[entry.keyEnv] || null : null);
    const enabled = override.enabled ?? true;
    const adapter = adapterFor(entry.kind);
    const keyless = adapter.keyless === true;
    // A self-hosted server is opted into: its default address only says where one usually listens.
    const usable = entry.selfHosted === true ? override.enabled === true || (override.enabled !== false && override.baseUrl !== undefined)
      : enabled && (keyless || apiKey !== null);
    providers.set(entry.id, {
      entry: override.residency === undefined ? entry : { ...entry, residency: override.residency },
      id: entry.id,
      baseUrl: (override.baseUrl ?? entry.baseUrl).replace(/\/+$/, ''),
      apiKey,
      configured: usable,
      enabled: entry.selfHosted === true ? usable : enabled,
      inProcess: adapter.answerInProcess ?? null,
    });
  }
  for (const id of Object.keys(config.providers)) {
    if (!providers.has(id)) throw new ConfigError(`invalid config at /providers/${id}: no provider '${id}' in the catalog`);
  }

  const models = new Map<string, Model>();
  const routes = new Map<string, Route>();
  for (const entry of file.models) {
    if (models.has(entry.id)) throw new ConfigError(`invalid catalog ${path}: model '${entry.id}' is listed twice`);
    const modelRoutes: Route[] = entry.routes.map((r) => {
      const provider = providers.get(r.provider);
      if (!provider) throw new ConfigError(`invalid catalog ${path}: model '${entry.id}' names unknown provider '${r.provider}'`);
      if (!adapterFor(provider.entry.kind).endpoints.has(ENDPOINT_OF[entry.kind])) {
        throw new ConfigError(`invalid catalog ${path}: provider '${provider.id}' (${provider.entry.kind}) cannot serve ${entry.kind} model '${entry.id}'`);
      }
      if (entry.translates === true && (entry.kind !== 'transcription' || !adapterFor(provider.entry.kind).endpoints.has('translations'))) {
        throw new ConfigError(`invalid catalog ${path}: model '${entry.id}' is marked translates, which needs a transcription model on providers that translate`);
      }
      const price = r.priceInr ?? entry.priceInr;
      const id = `${r.provider}:${r.upstreamModel}`;
      const route: Route = routes.get(id) ?? {
        id, provider, upstreamModel: r.upstreamModel, priceInr: price, direct: false, contextLength: entry.contextLength,
        inputMicrosPerUnit: entry.kind === 'transcription' ? price.input * MICROS_PER_INR / 60 : price.input,
        outputMicrosPerUnit: AUDIO_KINDS.has(entry.kind) ? 0 : price.output,
        cachedInputMicrosPerUnit: AUDIO_KINDS.has(entry.kind) ? 0 : price.cachedInput ?? price.input,
        cacheWriteMicrosPerUnit: AUDIO_KINDS.has(entry.kind) ? 0 : price.cacheWrite ?? price.input,
      };
      routes.set(id, route);
      return route;
    });
    models.set(entry.id, {
      entry, id: entry.id, kind: entry.kind, routes: modelRoutes,
      usableRoutes: modelRoutes.filter((r) => r.provider.configured),
    });
  }
  return { providers, models, routes };
}
