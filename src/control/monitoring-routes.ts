import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { Catalog } from '../catalog/catalog.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import { blockedReason } from '../lib/address-guard.js';
import { seal, sealContext } from '../lib/secret-box.js';
import type { Collection } from '../domain/stores/collection-store.js';
import { findCollectionBySlug } from '../store/collections.js';
import {
  canariesSince, countAlerts, deleteAlert, findAlert, insertAlert, listAlerts, newAlertId, setMonitored, type AlertRow,
} from '../store/monitoring.js';
import { collectionHealth } from './routing/collection-health.js';
import type { ControlDeps } from './control-deps.js';
import { queryParams } from './query-params.js';
import { iso } from './team-rules.js';

const DAY = 86_400_000;
const MAX_LATENCY_MS = 600_000;

const Alert = Type.Object({
  id: Type.String(),
  metric: Type.String({ description: 'error_rate (0..1 of canaries failing) or latency_p95 (ms, successful canaries)' }),
  threshold: Type.Number(),
  window_minutes: Type.Integer({ description: 'the stretch of canaries it is judged on' }),
  target: Type.Object({ webhook: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }),
  firing: Type.Boolean(),
  last_value: Type.Union([Type.Number(), Type.Null()]),
  last_fired_at: Type.Union([Type.String(), Type.Null()]),
  last_delivery: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
const CreatedAlert = Type.Composite([Alert, Type.Object({
  secret: Type.Union([Type.String(), Type.Null()], {
    description: 'webhooks: the HMAC-SHA256 key of the x-gw-signature header, in this answer only; null for email',
  }),
})]);
const NewAlert = Type.Object({
  metric: Type.Union([Type.Literal('error_rate'), Type.Literal('latency_p95')]),
  threshold: Type.Number({ description: 'error_rate: above this share (0 < t <= 1); latency_p95: above this many ms' }),
  window_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_440, description: 'default 15' })),
  target: Type.Object({
    webhook: Type.Optional(Type.String({ description: 'URL that receives a signed JSON POST when the alert starts and stops firing' })),
    email: Type.Optional(Type.String({ description: 'address mailed through the configured SMTP relay (400 unavailable without one)' })),
  }, { additionalProperties: false }),
}, { additionalProperties: false });
const EMAIL_RE = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

const StepHealth = Type.Object({
  route: Type.String(), provider: Type.String(), model: Type.String(), upstream_model: Type.String(), canaries: Type.Integer(),
  uptime: Type.Union([Type.Number(), Type.Null()]), p95_latency_ms: Type.Union([Type.Number(), Type.Null()]),
  last_canary: Type.Union([Type.Object({ at: Type.String(), ok: Type.Boolean(), latency_ms: Type.Number(), error: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
  daily: Type.Array(Type.Object({
    day: Type.String({ description: 'IST calendar day, YYYY-MM-DD' }), canaries: Type.Integer(),
    uptime: Type.Union([Type.Number(), Type.Null()]), p95_latency_ms: Type.Union([Type.Number(), Type.Null()]),
  }), { description: 'every IST day the window touches, oldest first; null uptime and latency on days without canaries' }),
});
const Health = Type.Object({
  slug: Type.String(), monitored: Type.Boolean(), days: Type.Integer(), since: Type.String(), canaries: Type.Integer(),
  error_rate: Type.Union([Type.Number(), Type.Null()]), p95_latency_ms: Type.Union([Type.Number(), Type.Null()]), steps: Type.Array(StepHealth),
});

export interface MonitoringRouteDeps extends ControlDeps {
  catalog: Catalog;
  masterKey: Buffer;
  /** Canaries a collection's steps now and judges its alerts (the monitor, which calls providers). */
  check(collectionId: string): Promise<void>;
}

/**
 * Reliability monitoring of the org's own collections (spec 4.10): monitoring on or off, a canary
 * of every step on request, per-step health over 1-90 days, and alerts on error rate or p95
 * latency delivered to a webhook.
 */
export function monitoringRoutes(d: MonitoringRouteDeps): RouteSpec[] {
  const { db, catalog } = d;
  const cfg = d.config.monitoring;
  const own = (slug: string, orgId: string): Collection => {
    const c = findCollectionBySlug(db, slug);
    if (!c || c.orgId !== orgId) throw errors.notFound(`No collection '${slug}' in this organisation`);
    return c;
  };
  const health = (c: Collection, days: number, monitored: boolean): Static<typeof Health> => {
    const since = d.clock.now() - days * DAY;
    return { slug: c.slug, monitored, ...collectionHealth(catalog, c.steps, canariesSince(db, c.id, since), days, since) };
  };
  /** When each collection was last checked on request. */
  const lastCheck = new Map<string, number>();
  const view = (a: AlertRow): Static<typeof Alert> => ({
    id: a.id, metric: a.metric, threshold: a.threshold, window_minutes: a.window_minutes, target: { [a.target_kind]: a.target }, firing: a.firing, last_value: a.last_value,
    last_fired_at: iso(a.last_fired_at), last_delivery: a.last_delivery, created_at: iso(a.created_at)!,
  });

  return [
    route({
      kind: 'json', method: 'post', path: '/me/collections/:slug/monitor', auth: 'session', role: 'admin',
      body: Type.Object({ monitored: Type.Boolean() }, { additionalProperties: false }),
      response: Type.Object({ slug: Type.String(), monitored: Type.Boolean() }),
      summary: 'Turn monitoring of a collection on or off (owner/admin): canaries every monitoring.intervalMs',
      handle: (ctx) => {
        const c = own(ctx.params.slug, ctx.session.orgId);
        const monitored = (ctx.body).monitored;
        setMonitored(db, c.id, monitored);
        return { body: { slug: c.slug, monitored } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/:slug/check', auth: 'session', response: Health,
      summary: 'Canary every step of the collection now and return fresh health (the last 7 days)',
      handle: async (ctx) => {
        const c = own(ctx.params.slug, ctx.session.orgId);
        const now = d.clock.now();
        const wait = (lastCheck.get(c.id) ?? -Infinity) + cfg.minCheckIntervalMs - now;
        if (wait > 0) throw errors.rateLimitExceeded(Math.ceil(wait / 1000), `a collection is checked at most every ${cfg.minCheckIntervalMs} ms`);
        lastCheck.set(c.id, now);
        await d.check(c.id);
        return { body: health(c, 7, c.monitored) };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections/:slug/health', auth: 'session', response: Health,
      summary: 'Per-step uptime, p95 latency and last canary; query days 1-90 (default 7)',
      handle: (ctx) => {
        const c = own(ctx.params.slug, ctx.session.orgId);
        const q = queryParams(ctx.query, ['days']);
        const days = q.has('days') ? Number(q.get('days')) : 7;
        if (!Number.isInteger(days) || days < 1 || days > 90) throw errors.badRequest(`'days' must be an integer from 1 to 90`);
        return { body: health(c, days, c.monitored) };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections/:slug/alerts', auth: 'session', response: Type.Object({ data: Type.Array(Alert) }),
      summary: 'The collection\'s alerts, each with whether it is firing and its last delivery',
      handle: (ctx) => ({ body: { data: listAlerts(db, own(ctx.params.slug, ctx.session.orgId).id).map(view) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/:slug/alerts', auth: 'session', role: 'admin', body: NewAlert, response: CreatedAlert,
      summary: 'Create an alert on error_rate or latency_p95 over window_minutes, delivered to a signed webhook or by email (owner/admin)',
      handle: async (ctx) => {
        const c = own(ctx.params.slug, ctx.session.orgId);
        const b = ctx.body;
        const bad = b.metric === 'error_rate' ? !(b.threshold > 0 && b.threshold <= 1) : !(b.threshold > 0 && b.threshold <= MAX_LATENCY_MS);
        if (bad) throw errors.badRequest(b.metric === 'error_rate' ? `'threshold' for error_rate is a share above 0, at most 1`
          : `'threshold' for latency_p95 is milliseconds above 0, at most ${MAX_LATENCY_MS}`);
        const kinds = Object.keys(b.target);
        if (kinds.length !== 1) throw errors.badRequest(`'target' takes exactly one of webhook or email`);
        let target: string;
        let secret: string | null = null;
        if (b.target.email !== undefined) {
          if (d.config.smtp.host === undefined) {
            throw errors.rule('unavailable', 'Email alerts are not available: no SMTP relay is configured (smtp.host); use a webhook');
          }
          if (!EMAIL_RE.test(b.target.email) || b.target.email.length > 254) throw errors.badRequest(`Invalid 'target.email': not an address`);
          target = b.target.email;
        } else {
          let url: URL;
          try {
            url = new URL(b.target.webhook!);
          } catch {
            throw errors.badRequest(`Invalid 'target.webhook': not a URL`);
          }
          const blocked = await blockedReason(url, cfg.allowInternalWebhooks);
          if (blocked !== null) throw errors.badRequest(`Invalid 'target.webhook': ${blocked}`);
          target = url.toString();
          secret = `whsec_${randomBytes(24).toString('base64url')}`;
        }
        if (countAlerts(db, c.id) >= cfg.maxAlertsPerCollection) {
          throw errors.rule('cap', `A collection can have at most ${cfg.maxAlertsPerCollection} alerts`);
        }
        const id = newAlertId();
        insertAlert(db, id, {
          collection_id: c.id, metric: b.metric, threshold: b.threshold, window_minutes: b.window_minutes ?? 15,
          target_kind: b.target.email !== undefined ? 'email' : 'webhook', target,
          secret_sealed: secret === null ? null : seal(secret, d.masterKey, sealContext.alertSecret(id)),
        }, d.clock.now());
        return { status: 201, body: { ...view(findAlert(db, id)!), secret } };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/collections/:slug/alerts/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
      summary: 'Remove an alert (owner/admin)',
      handle: (ctx) => {
        const c = own(ctx.params.slug, ctx.session.orgId);
        const a = findAlert(db, ctx.params.id);
        if (!a || a.collection_id !== c.id) throw errors.notFound('No such alert on this collection');
        deleteAlert(db, a.id);
        return { body: { id: a.id, deleted: true } };
      },
    }),
  ];
}
