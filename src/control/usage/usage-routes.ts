import { Type, type TSchema } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { Logger } from '../../lib/logger.js';
import { queryParams } from '../query-params.js';
import { usageExportRoute } from './usage-export.js';
import type { UsageService } from './usage-service.js';

// ---- response schemas ----------------------------------------------------------------------

const Int = Type.Integer();
const Inr = Type.Number({ description: '₹' });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const volume = {
  requests: Int, prompt_tokens: Int, completion_tokens: Int,
  cached_tokens: Type.Integer({ description: 'of prompt_tokens: read from the provider\'s prompt cache, billed at the cached-input price' }),
  cache_write_tokens: Type.Integer({ description: 'of prompt_tokens: written to the provider\'s prompt cache, billed at the cache-write price' }),
  reasoning_tokens: Type.Integer({ description: 'of completion_tokens: spent reasoning, billed at the output price' }),
  cost: Inr,
};
const Volume = Type.Object(volume);
const Day = Type.String({ description: 'IST calendar day, YYYY-MM-DD' });
const DayModel = Type.Object({ day: Day, model: Type.String(), ...volume });

const UsageBody = Type.Object({
  today: Day,
  from: Day,
  data: Type.Array(Type.Object({
    id: Type.String(), prefix: Type.String(), name: Type.String(), status: Type.String({ description: 'active, revoked or expired' }),
    today: Volume, last_30_days: Volume,
  })),
});
const DailyBody = Type.Object({ from: Day, to: Day, data: Type.Array(DayModel) });
const ActivityBody = Type.Object({
  from: Day,
  to: Day,
  totals: Volume,
  events: Type.Integer({ description: 'usage rows (one per attempt) in the range: what /me/activity/events and its CSV export list' }),
  daily: Type.Array(DayModel),
  top_models: Type.Array(Type.Object({ model: Type.String(), ...volume })),
  top_keys: Type.Array(Type.Object({ id: Type.String(), prefix: Nullable(Type.String()), name: Nullable(Type.String()), ...volume })),
  providers: Type.Array(Type.Object({
    provider: Type.String(), requests: Type.Integer({ description: 'requests this provider served' }), cost: Inr,
    share: Type.Number({ description: 'fraction of the period\'s cost, 0..1' }),
  })),
});
const EventsBody = Type.Object({
  data: Type.Array(Type.Object({
    at: Type.String(), request_id: Type.String(), key_id: Type.String(), key_prefix: Nullable(Type.String()), endpoint: Type.String(),
    model: Type.String(), provider: Nullable(Type.String()), attempt: Int, status: Int, error_code: Nullable(Type.String()),
    prompt_tokens: Int, completion_tokens: Int, cached_tokens: volume.cached_tokens, cache_write_tokens: volume.cache_write_tokens,
    reasoning_tokens: volume.reasoning_tokens, cost: Inr, latency_ms: Type.Number(), ttfb_ms: Nullable(Type.Number()),
    streamed: Type.Boolean(), billable: Type.Boolean(), byok: Type.Boolean(),
    usage_estimated: Type.Boolean({ description: 'the provider reported no usage; tokens and cost are the gateway\'s estimate' }),
    units: Type.Integer({ description: 'audio: seconds heard (transcriptions) or characters spoken (speech); 0 for token-billed requests' }),
    usage_clamped: Type.Boolean({ description: 'the provider reported more tokens than the request could have used; tokens and cost were cut to those bounds' }),
  })),
  next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next (older) page; null at the end' })),
});

// ---- routes ---------------------------------------------------------------------------------

/** /me/usage, /me/usage/daily, /me/activity, /me/activity/events (spec 4.12), scoped to the session's active org. */
export function usageRoutes(usage: UsageService, log: Logger): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/me/usage', auth: 'session', response: UsageBody,
      summary: 'Per key: requests, tokens and ₹ cost today (IST) and over the last 30 IST days, keys without usage included',
      handle: async (ctx) => {
        queryParams(ctx.query, []);
        return { body: await usage.perKey(ctx.session.orgId) };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/usage/daily', auth: 'session', response: DailyBody,
      summary: 'The last 30 IST days by day and model: requests, tokens, ₹ cost (days with no usage are left out)',
      handle: async (ctx) => {
        queryParams(ctx.query, []);
        return { body: await usage.daily(ctx.session.orgId) };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/activity', auth: 'session', response: ActivityBody,
      summary: 'Spend and volume from..to (IST dates, inclusive; default the last 30 days; at most 366): by day and model, '
        + 'top models and keys, per-provider cost split, totals',
      handle: async (ctx) => ({ body: await usage.activity(ctx.session.orgId, queryParams(ctx.query, ['from', 'to'])) }),
    }),
    route({
      kind: 'json', method: 'get', path: '/me/activity/events', auth: 'session', response: EventsBody,
      summary: 'Per-attempt rows newest first (limit 1-200, default 50; filters model, key_id, request_id, status=ok|error|NNN, and from..to, '
        + 'IST dates, at most 366 days, when either is given); pass next_cursor as cursor for the next page',
      handle: async (ctx) => ({
        body: await usage.events(ctx.session.orgId, queryParams(ctx.query, ['limit', 'cursor', 'model', 'key_id', 'request_id', 'status', 'from', 'to'])),
      }),
    }),
    usageExportRoute(usage, log),
  ];
}
