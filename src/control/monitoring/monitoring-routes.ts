import { Type, type Static } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { AlertRow } from '../../domain/stores/monitoring-store.js';
import { iso } from '../../lib/iso-time.js';
import { queryParams } from '../query-params.js';
import type { MonitoringService } from './monitoring-service.js';

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

const view = (a: AlertRow): Static<typeof Alert> => ({
  id: a.id, metric: a.metric, threshold: a.threshold, window_minutes: a.window_minutes, target: { [a.target_kind]: a.target }, firing: a.firing,
  last_value: a.last_value, last_fired_at: iso(a.last_fired_at), last_delivery: a.last_delivery, created_at: iso(a.created_at),
});

/**
 * Reliability monitoring of the org's own collections (spec 4.10): HTTP to the monitoring
 * service and back.
 */
export function monitoringRoutes(monitoring: MonitoringService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'post', path: '/me/collections/:slug/monitor', auth: 'session', role: 'admin',
      body: Type.Object({ monitored: Type.Boolean() }, { additionalProperties: false }),
      response: Type.Object({ slug: Type.String(), monitored: Type.Boolean() }),
      summary: 'Turn monitoring of a collection on or off (owner/admin): canaries every monitoring.intervalMs',
      handle: async (ctx) => {
        const slug = await monitoring.setMonitored(ctx.session.orgId, ctx.params.slug, ctx.body.monitored);
        return { body: { slug, monitored: ctx.body.monitored } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/:slug/check', auth: 'session', response: Health,
      summary: 'Canary every step of the collection now and return fresh health (the last 7 days)',
      handle: async (ctx) => ({ body: await monitoring.checkNow(ctx.session.orgId, ctx.params.slug) }),
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections/:slug/health', auth: 'session', response: Health,
      summary: 'Per-step uptime, p95 latency and last canary; query days 1-90 (default 7)',
      handle: async (ctx) => {
        const q = queryParams(ctx.query, ['days']);
        return { body: await monitoring.health(ctx.session.orgId, ctx.params.slug, q.has('days') ? Number(q.get('days')) : 7) };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/collections/:slug/alerts', auth: 'session', response: Type.Object({ data: Type.Array(Alert) }),
      summary: 'The collection\'s alerts, each with whether it is firing and its last delivery',
      handle: async (ctx) => ({ body: { data: (await monitoring.alerts(ctx.session.orgId, ctx.params.slug)).map(view) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/collections/:slug/alerts', auth: 'session', role: 'admin', body: NewAlert, response: CreatedAlert,
      summary: 'Create an alert on error_rate or latency_p95 over window_minutes, delivered to a signed webhook or by email (owner/admin)',
      handle: async (ctx) => {
        const b = ctx.body;
        const { alert, secret } = await monitoring.createAlert(ctx.session.orgId, ctx.params.slug, {
          metric: b.metric, threshold: b.threshold, windowMinutes: b.window_minutes, target: b.target,
        });
        return { status: 201, body: { ...view(alert), secret } };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/collections/:slug/alerts/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
      summary: 'Remove an alert (owner/admin)',
      handle: async (ctx) => {
        await monitoring.deleteAlert(ctx.session.orgId, ctx.params.slug, ctx.params.id);
        return { body: { id: ctx.params.id, deleted: true } };
      },
    }),
  ];
}
