import { performance } from 'node:perf_hooks';
import type { Catalog, Route } from '../catalog/catalog.js';
import type { Config } from '../config/schema.js';
import { chainRoutes } from '../catalog/chain-routes.js';
import type { ProxyDispatchers } from '../control/proxy-dispatchers.js';
import type { AbortSource, UpstreamClient } from '../dataplane/upstream-client.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../lib/mailer.js';
import { scrubSecrets } from '../lib/secret-scrub.js';
import { p95 } from '../lib/stats.js';
import { adapterFor } from '../providers/registry.js';
import type { Endpoint } from '../providers/types.js';
import type { Collection, CollectionStore } from '../domain/stores/collection-store.js';
import type { MonitorStore } from '../domain/stores/monitor-store.js';
import type { CanaryRow } from '../domain/stores/monitoring-store.js';
import { AlertDelivery } from './alert-delivery.js';

/** Canaries are kept as long as the longest health window (spec 8: days 1–90). */
const KEEP_MS = 90 * 86_400_000;
const ANSWER_BYTES = 1024 * 1024;
const CANARY_ENDPOINT: Partial<Record<string, Endpoint>> = { chat: 'chat', embedding: 'embeddings' };

/** A timer that aborts an upstream call, as a client going away would. */
class Deadline implements AbortSource {
  aborted = false;
  readonly #callbacks: (() => void)[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.#timer = setTimeout(() => {
      this.aborted = true;
      for (const cb of this.#callbacks) cb();
    }, ms);
    this.#timer.unref();
  }

  onAbort(cb: () => void): void {
    if (this.aborted) cb();
    else this.#callbacks.push(cb);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

export interface MonitorDeps {
  masterKey: Buffer;
  outbound: ProxyDispatchers;
  /** Null without a relay (smtp.host). */
  mailer: Mailer | null;
  /** Canaries, alerts and the alert outbox: one database, which other instances' monitors may share. */
  store: MonitorStore;
  /** Where the checked collections' steps are read. */
  collections: Pick<CollectionStore, 'find'>;
  catalog: Catalog;
  upstream: UpstreamClient;
  clock: Clock;
  log: Logger;
  config: Readonly<Config>;
  /**
   * With several instances, each would canary every monitored collection every interval: a
   * round of a collection runs where this answers true (one instance per interval). Absent: always.
   */
  claimRound?: (collectionId: string) => Promise<boolean>;
}

/**
 * Reliability monitoring (spec 4.10). A check sends one small canary to every configured route of
 * a collection's steps (chat and embedding models: one token, or one short input), on the
 * platform's keys, outside the ledger and the breakers, and keeps each result. Monitored
 * collections are checked every `monitoring.intervalMs`. After each check each alert is judged on
 * the canaries of its own window; one that starts or stops firing is delivered once: a JSON POST
 * signed with HMAC-SHA256 (`x-gw-signature`) and retried with backoff, or a mail through the SMTP
 * relay (DESIGN.md, Alerts).
 */
export class Monitor {
  readonly #d: MonitorDeps;
  readonly #deliveries: AlertDelivery;
  readonly #headers = new Map<string, Record<string, string>>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> = Promise.resolve();

  constructor(d: MonitorDeps) {
    this.#d = d;
    this.#deliveries = new AlertDelivery(d);
  }

  start(): void {
    this.#deliveries.start();
    const every = this.#d.config.monitoring.intervalMs;
    let busy = false;
    this.#timer = setInterval(() => {
      // A round that outlasts the interval (many collections, slow routes) is not overlapped by the next.
      if (busy) return;
      busy = true;
      this.#running = this.#round().catch((e) => this.#d.log.error('monitoring round failed', { err: String(e) }))
        .finally(() => {
          busy = false;
        });
    }, every);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
    await this.#deliveries.stop();
  }

  /** Canaries every step of a collection now, keeps the results, and judges its alerts. */
  async check(collectionId: string): Promise<void> {
    const c = await this.#d.collections.find(collectionId);
    if (!c) return;
    const results = await Promise.all(chainRoutes(this.#d.catalog, c.steps).map(({ route, model }) => this.#canary(route, model)));
    const kept = results.filter((r): r is CanaryRow => r !== null);
    if (kept.length > 0) await this.#d.store.insertCanaries(c.id, kept);
    await this.#judge(c);
  }

  async #round(): Promise<void> {
    for (const id of await this.#d.store.monitoredCollectionIds()) {
      if (this.#d.claimRound && !await this.#d.claimRound(id)) continue;
      await this.check(id);
    }
    await this.#d.store.pruneCanaries(this.#d.clock.now() - KEEP_MS);
  }

  /** One canary to one route; null for a route this gateway cannot call or a model kind with no cheap canary. */
  async #canary(route: Route, modelId: string): Promise<CanaryRow | null> {
    const routeId = route.id;
    const kind = this.#d.catalog.models.get(modelId)?.kind;
    const endpoint = kind === undefined ? undefined : CANARY_ENDPOINT[kind];
    if (!route.provider.configured || endpoint === undefined) return null;
    const payload: Record<string, unknown> = endpoint === 'chat'
      ? { messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }
      : { input: 'ping' };
    const call = adapterFor(route.provider.entry.kind).buildCall(endpoint, payload, route.upstreamModel, { streamOptions: false });
    const deadline = new Deadline(this.#d.config.monitoring.canaryTimeoutMs);
    const at = this.#d.clock.now();
    const started = performance.now();
    try {
      const res = await this.#d.upstream.send(endpoint, route, call, { payload }, this.#headersFor(route), deadline);
      const body = await res.readAll(ANSWER_BYTES);
      const latency = performance.now() - started;
      // Shown to the collection's readers: a provider may echo the platform key it was sent.
      if (res.status >= 400) {
        return { route: routeId, at, ok: false, latency_ms: latency, error: `upstream ${res.status}: ${scrubSecrets(body.toString('utf8'), route.provider.apiKey).slice(0, 200)}` };
      }
      return { route: routeId, at, ok: true, latency_ms: latency, error: null };
    } catch (e) {
      const error = deadline.aborted ? `no answer within ${this.#d.config.monitoring.canaryTimeoutMs} ms` : (e as Error).message;
      return { route: routeId, at, ok: false, latency_ms: performance.now() - started, error: error.slice(0, 200) };
    } finally {
      deadline.clear();
    }
  }

  #headersFor(route: Route): Record<string, string> {
    let h = this.#headers.get(route.id);
    if (h === undefined) {
      const key = route.provider.apiKey;
      h = { 'content-type': 'application/json', accept: 'application/json', ...(key ? adapterFor(route.provider.entry.kind).authHeaders(key) : {}) };
      this.#headers.set(route.id, h);
    }
    return h;
  }

  async #judge(c: Collection): Promise<void> {
    const { store } = this.#d;
    const alerts = await store.listAlerts(c.id);
    if (alerts.length === 0) return;
    const now = this.#d.clock.now();
    const longest = Math.max(...alerts.map((a) => a.window_minutes));
    const canaries = await store.canariesSince(c.id, now - longest * 60_000);
    for (const a of alerts) {
      const recent = canaries.filter((r) => r.at >= now - a.window_minutes * 60_000);
      if (recent.length === 0) continue;
      const value = a.metric === 'error_rate' ? recent.filter((r) => !r.ok).length / recent.length
        : p95(recent.filter((r) => r.ok).map((r) => r.latency_ms));
      if (value === null) continue;
      const firing = value > a.threshold;
      if (firing === a.firing) {
        await store.recordAlertValue(a.id, value);
        continue;
      }
      const state = firing ? 'firing' : 'resolved';
      const event = {
        type: 'gw.alert', state, alert_id: a.id, collection: { slug: c.slug, name: c.name },
        metric: a.metric, value, threshold: a.threshold, window_minutes: a.window_minutes, at: new Date(now).toISOString(),
      };
      // Queued in the database and delivered on its own (retries wait seconds): the check answers without it.
      // Another instance's monitor may have judged the alert first: then its change, not this one, is queued.
      if (await store.changeAlert({ alertId: a.id, wasFiring: a.firing, value, event: JSON.stringify(event), now })) this.#deliveries.wake();
    }
  }
}
