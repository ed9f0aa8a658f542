import { randomBytes } from 'node:crypto';
import type { Catalog } from '../../catalog/catalog.js';
import type { Config } from '../../config/schema.js';
import type { Collection, CollectionStore } from '../../domain/stores/collection-store.js';
import type { AlertRow, MonitoringStore } from '../../domain/stores/monitoring-store.js';
import { errors } from '../../errors/catalog.js';
import { blockedReason } from '../../lib/address-guard.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { seal, sealContext } from '../../lib/secret-box.js';
import { collectionHealth, type CollectionHealth } from '../routing/collection-health.js';

const DAY = 86_400_000;
const MAX_LATENCY_MS = 600_000;
const EMAIL_RE = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export interface MonitoringServiceDeps {
  monitoring: MonitoringStore;
  collections: Pick<CollectionStore, 'findBySlug'>;
  catalog: Catalog;
  clock: Clock;
  masterKey: Buffer;
  settings: Config['monitoring'];
  /** Whether alert mail can be sent (an SMTP relay is configured). */
  canMail: boolean;
  /** Canaries a collection's steps now and judges its alerts (the monitor, which calls providers). */
  check(collectionId: string): Promise<void>;
}

export interface HealthReport extends CollectionHealth {
  slug: string;
  monitored: boolean;
}

export interface AlertInput {
  metric: 'error_rate' | 'latency_p95';
  threshold: number;
  windowMinutes?: number;
  target: { webhook?: string; email?: string };
}

/**
 * Reliability monitoring of an org's own collections (spec 4.10): monitoring on or off, a canary
 * of every step on request (at most every minCheckIntervalMs), per-step health over 1-90 days,
 * and alerts on error rate or p95 latency, delivered to a signed webhook or by email.
 */
export class MonitoringService {
  readonly #d: MonitoringServiceDeps;
  /** When each collection was last checked on request. */
  readonly #lastCheck = new Map<string, number>();

  constructor(deps: MonitoringServiceDeps) {
    this.#d = deps;
  }

  async setMonitored(orgId: string, slug: string, monitored: boolean): Promise<string> {
    const c = await this.#own(orgId, slug);
    await this.#d.monitoring.setMonitored(c.id, monitored);
    return c.slug;
  }

  /** Canaries every step now and returns fresh health over the last 7 days. */
  async checkNow(orgId: string, slug: string): Promise<HealthReport> {
    const c = await this.#own(orgId, slug);
    const now = this.#d.clock.now();
    const every = this.#d.settings.minCheckIntervalMs;
    const wait = (this.#lastCheck.get(c.id) ?? -Infinity) + every - now;
    if (wait > 0) throw errors.rateLimitExceeded(Math.ceil(wait / 1000), `a collection is checked at most every ${every} ms`);
    this.#lastCheck.set(c.id, now);
    await this.#d.check(c.id);
    return this.#health(c, 7);
  }

  async health(orgId: string, slug: string, days: number): Promise<HealthReport> {
    if (!Number.isInteger(days) || days < 1 || days > 90) throw errors.badRequest(`'days' must be an integer from 1 to 90`);
    return this.#health(await this.#own(orgId, slug), days);
  }

  async alerts(orgId: string, slug: string): Promise<AlertRow[]> {
    return this.#d.monitoring.listAlerts((await this.#own(orgId, slug)).id);
  }

  /** A new alert; a webhook's signing secret is returned here only. */
  async createAlert(orgId: string, slug: string, a: AlertInput): Promise<{ alert: AlertRow; secret: string | null }> {
    const d = this.#d;
    const c = await this.#own(orgId, slug);
    const bad = a.metric === 'error_rate' ? !(a.threshold > 0 && a.threshold <= 1) : !(a.threshold > 0 && a.threshold <= MAX_LATENCY_MS);
    if (bad) throw errors.badRequest(a.metric === 'error_rate' ? `'threshold' for error_rate is a share above 0, at most 1`
      : `'threshold' for latency_p95 is milliseconds above 0, at most ${MAX_LATENCY_MS}`);
    if (Object.keys(a.target).length !== 1) throw errors.badRequest(`'target' takes exactly one of webhook or email`);
    let target: string;
    let secret: string | null = null;
    if (a.target.email !== undefined) {
      if (!d.canMail) throw errors.rule('unavailable', 'Email alerts are not available: no SMTP relay is configured (smtp.host); use a webhook');
      if (!EMAIL_RE.test(a.target.email) || a.target.email.length > 254) throw errors.badRequest(`Invalid 'target.email': not an address`);
      target = a.target.email;
    } else {
      let url: URL;
      try {
        url = new URL(a.target.webhook!);
      } catch {
        throw errors.badRequest(`Invalid 'target.webhook': not a URL`);
      }
      const blocked = await blockedReason(url, d.settings.allowInternalWebhooks);
      if (blocked !== null) throw errors.badRequest(`Invalid 'target.webhook': ${blocked}`);
      target = url.toString();
      secret = `whsec_${randomBytes(24).toString('base64url')}`;
    }
    const id = newId('alert');
    const max = d.settings.maxAlertsPerCollection;
    const alert = await d.monitoring.createAlert({
      id, collection_id: c.id, metric: a.metric, threshold: a.threshold, window_minutes: a.windowMinutes ?? 15,
      target_kind: a.target.email !== undefined ? 'email' : 'webhook', target,
      secret_sealed: secret === null ? null : seal(secret, d.masterKey, sealContext.alertSecret(id)),
    }, d.clock.now(), (alerts) => {
      if (alerts >= max) throw errors.rule('cap', `A collection can have at most ${max} alerts`);
    });
    return { alert, secret };
  }

  async deleteAlert(orgId: string, slug: string, id: string): Promise<void> {
    const c = await this.#own(orgId, slug);
    const a = await this.#d.monitoring.findAlert(id);
    if (!a || a.collection_id !== c.id) throw errors.notFound('No such alert on this collection');
    await this.#d.monitoring.deleteAlert(a.id);
  }

  async #own(orgId: string, slug: string): Promise<Collection> {
    const c = await this.#d.collections.findBySlug(slug);
    if (!c || c.orgId !== orgId) throw errors.notFound(`No collection '${slug}' in this organisation`);
    return c;
  }

  async #health(c: Collection, days: number): Promise<HealthReport> {
    const since = this.#d.clock.now() - days * DAY;
    const canaries = await this.#d.monitoring.canariesSince(c.id, since);
    return { slug: c.slug, monitored: c.monitored, ...collectionHealth(this.#d.catalog, c.steps, canaries, days, since) };
  }
}
