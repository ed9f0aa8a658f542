import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import { gstinValid, stateCodeOf } from '../lib/gst-codes.js';
import { parsePolicyText } from '../lib/guardrail-policy.js';
import { parseProxyUrl } from '../lib/proxy-settings.js';
import { defaultConnectionsPerOrigin } from '../lib/stream-capacity.js';
import { ConfigSchema, type Config } from './schema.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The package's folder, where `npm start` runs. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface LoadOptions {
  /** Path of a JSON config file; falls back to GW_CONFIG. */
  file?: string;
  /**
   * Where a relative path the operator typed (--config, --db, GW_CONFIG, GW_DB) is resolved:
   * the folder the command was typed in, which npm passes as INIT_CWD because `npm start` and
   * `npx gw` themselves may run elsewhere. Defaults to INIT_CWD, else the current directory.
   */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Applied last (CLI flags). */
  overrides?: Record<string, unknown>;
}

/**
 * Builds the configuration once at start: defaults, then the file, then environment, then CLI
 * overrides; validates against the schema and freezes it. An invalid value stops start-up with a
 * message naming its path (e.g. `/upstream/connectTimeoutMs`).
 */
export function loadConfig(opts: LoadOptions = {}): Readonly<Config> {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? (env.INIT_CWD || process.cwd());
  const given = opts.file ?? env.GW_CONFIG;
  const file = given ? resolve(cwd, given) : given;
  let raw: Record<string, unknown> = {};
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config file ${file}: ${(e as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`config file ${file} must hold a JSON object`);
  }
  if (env.GW_PORT !== undefined) raw.port = numberFromEnv('GW_PORT', env.GW_PORT);
  if (env.GW_HOST !== undefined) raw.host = env.GW_HOST;
  if (env.GW_LOG_LEVEL !== undefined) raw.logLevel = env.GW_LOG_LEVEL;
  // Sign-in settings, so secrets can stay out of the file (an empty variable counts as unset).
  if (env.GW_BASE_URL) raw.baseUrl = env.GW_BASE_URL.replace(/\/+$/, '');
  for (const [name, path] of SIGN_IN_ENV) if (env[name]) setIn(raw, path, env[name], name);
  const typed = env.GW_DB !== undefined || opts.overrides?.dbPath !== undefined;
  if (env.GW_DB !== undefined) raw.dbPath = env.GW_DB;
  // Connection URLs carry passwords: the environment can give them, to keep them out of the file (an empty variable counts as unset).
  if (env.GW_STORE) setIn(raw, ['store', 'url'], env.GW_STORE, 'GW_STORE');
  if (env.GW_REDIS) setIn(raw, ['redis', 'url'], env.GW_REDIS, 'GW_REDIS');
  if (env.GW_METRICS_TOKEN) setIn(raw, ['metrics', 'token'], env.GW_METRICS_TOKEN, 'GW_METRICS_TOKEN');
  if (env.GW_OTLP_URL) setIn(raw, ['tracing', 'otlpUrl'], env.GW_OTLP_URL, 'GW_OTLP_URL');
  Object.assign(raw, opts.overrides ?? {});
  raw.dbPath = absoluteDbPath(raw.dbPath, typed || !file ? cwd : dirname(file));

  const withDefaults = Value.Default(ConfigSchema, structuredClone(raw));
  const firstError = Value.Errors(ConfigSchema, withDefaults).First();
  if (firstError) {
    const where = firstError.path || '/';
    throw new ConfigError(`invalid config at ${where}: ${firstError.message}${file ? ` (file ${file})` : ''}`);
  }
  const config = withDefaults as Config;
  if (config.upstream.maxBufferedBytes < config.upstream.maxResponseBytes) {
    throw new ConfigError(`invalid config at /upstream/maxBufferedBytes: must be at least upstream.maxResponseBytes ` +
      `(${config.upstream.maxResponseBytes})${file ? ` (file ${file})` : ''}`);
  }
  checkBilling(config.billing, file);
  const guard = config.guardrails.default === undefined ? null : parsePolicyText(config.guardrails.default).error;
  if (guard !== null) throw new ConfigError(`invalid config at /guardrails/default: ${guard}${file ? ` (file ${file})` : ''}`);
  // Several instances need both: PostgreSQL without Redis would hold limits and balances per instance.
  if ((config.store.url === undefined) !== (config.redis.url === undefined)) {
    throw new ConfigError(`invalid config at /${config.store.url ? 'redis/url' : 'store/url'}: store.url (GW_STORE) and redis.url (GW_REDIS) ` +
      `go together: PostgreSQL holds what several instances share durably, Redis what they share on the hot path (docs/scale-out.md)${file ? ` (file ${file})` : ''}`);
  }
  applyProxyEnv(config.upstream, env, file);
  if (config.upstream.connectionsPerOrigin === 0) config.upstream.connectionsPerOrigin = defaultConnectionsPerOrigin();
  if (config.upstream.maxQueuedPerOrigin === 0) config.upstream.maxQueuedPerOrigin = config.upstream.connectionsPerOrigin;
  return deepFreeze(config);
}

/** Cross-field rules of the billing section; the seller's state is kept as its GST code. */
function checkBilling(b: Config['billing'], file: string | undefined): void {
  const at = (path: string, why: string) => new ConfigError(`invalid config at /billing/${path}: ${why}${file ? ` (file ${file})` : ''}`);
  if (b.minTopupInr > b.maxTopupInr) throw at('minTopupInr', 'must not exceed billing.maxTopupInr');
  if (b.seller.state !== undefined) {
    const code = stateCodeOf(b.seller.state);
    if (!code) throw at('seller/state', `'${b.seller.state}' is not an Indian state or union territory (name or GST state code)`);
    b.seller.state = code;
  }
  if (b.seller.gstin !== undefined && (!gstinValid(b.seller.gstin) || b.seller.gstin.slice(0, 2) !== b.seller.state)) {
    throw at('seller/gstin', 'must be a valid GSTIN registered in billing.seller.state');
  }
  if (b.payments.keyId !== undefined && b.seller.state === undefined) {
    throw at('seller/state', 'is required once billing.payments is configured: it decides CGST+SGST or IGST');
  }
}

// The conventional variables are machine-wide, so a value in the config file wins over them;
// the lowercase form wins over the uppercase one, as in curl and undici.
const PROXY_ENV = [
  ['httpProxy', 'http_proxy', 'HTTP_PROXY'],
  ['httpsProxy', 'https_proxy', 'HTTPS_PROXY'],
  ['allProxy', 'all_proxy', 'ALL_PROXY'],
  ['noProxy', 'no_proxy', 'NO_PROXY'],
] as const;

function applyProxyEnv(upstream: Config['upstream'], env: NodeJS.ProcessEnv, file: string | undefined): void {
  for (const [key, lower, upper] of PROXY_ENV) {
    let from = `/upstream/${key}${file ? ` (file ${file})` : ''}`;
    if (upstream[key] === undefined) {
      const name = env[lower] ? lower : env[upper] ? upper : null;
      if (name === null) continue;
      upstream[key] = env[name];
      from = `/upstream/${key} (from ${name})`;
    }
    if (key === 'noProxy' || upstream[key] === '') continue;
    try {
      parseProxyUrl(upstream[key]!);
    } catch (e) {
      throw new ConfigError(`invalid config at ${from}: ${(e as Error).message}`);
    }
  }
}

const SIGN_IN_ENV: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['GW_GOOGLE_CLIENT_ID', ['auth', 'google', 'clientId']],
  ['GW_GOOGLE_CLIENT_SECRET', ['auth', 'google', 'clientSecret']],
  ['GW_GITHUB_CLIENT_ID', ['auth', 'github', 'clientId']],
  ['GW_GITHUB_CLIENT_SECRET', ['auth', 'github', 'clientSecret']],
  ['GW_PAYMENTS_KEY_ID', ['billing', 'payments', 'keyId']],
  ['GW_PAYMENTS_KEY_SECRET', ['billing', 'payments', 'keySecret']],
  ['GW_PAYMENTS_WEBHOOK_SECRET', ['billing', 'payments', 'webhookSecret']],
];

/** Sets raw[a][b][c] = value, creating the objects on the way; a non-object in the way is a config error. */
function setIn(raw: Record<string, unknown>, path: readonly string[], value: string, envName: string): void {
  let o = raw;
  for (let i = 0; i < path.length - 1; i++) {
    const next = o[path[i]] ?? (o[path[i]] = {});
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      throw new ConfigError(`invalid config at /${path.slice(0, i + 1).join('/')}: must be an object (${envName} sets a field in it)`);
    }
    o = next as Record<string, unknown>;
  }
  o[path[path.length - 1]] = value;
}

/**
 * The one rule for where the database is, shared by `npm start` and every `gw` command: a
 * relative dbPath from the config file is relative to that file, one typed by the operator
 * (GW_DB, --db) to where it was typed, and the default `./data/gateway.db` to the package root,
 * so a CLI started from another folder finds the gateway's database.
 */
function absoluteDbPath(value: unknown, base: string): unknown {
  if (value === undefined) return resolve(PACKAGE_ROOT, 'data', 'gateway.db');
  if (typeof value !== 'string' || value === '' || value === ':memory:' || isAbsolute(value)) return value;
  return resolve(base, value);
}

function numberFromEnv(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new ConfigError(`invalid config at ${name}: '${value}' is not a number`);
  return n;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
