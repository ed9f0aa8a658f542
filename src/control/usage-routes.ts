import { Type, type TSchema } from '@sinclair/typebox';
import { istDayLabel, istDayNumber } from '../lib/ist.js';
import { microsToInr } from '../lib/money.js';
import type { RouteSpec } from '../domain/route-spec.js';
import {
  orgKeysReader, usageEventsReader, usageExportReader, type UsageRollup, type EventFilter, type ApiKeyLabel, type UsageCell,
} from '../store/usage-reports.js';
import type { ControlDeps } from './control-deps.js';
import { queryParams } from './query-params.js';
import { dayRange, decodeCursor, encodeCursor, eventFilter, eventRange, parseLimit, WINDOW_DAYS } from './usage-query.js';
import { usageExportRoute } from './usage-export.js';

const TOP = 10;

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

// ---- aggregation ----------------------------------------------------------------------------

/** The summable part of a rollup cell. */
type Tally = Pick<UsageCell, 'requests' | 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'reasoningTokens' | 'costMicros'>;

const tally = (): Tally => ({ requests: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costMicros: 0 });

function add(t: Tally, c: UsageCell): void {
  t.requests += c.requests;
  t.promptTokens += c.promptTokens;
  t.completionTokens += c.completionTokens;
  t.cachedTokens += c.cachedTokens;
  t.cacheWriteTokens += c.cacheWriteTokens;
  t.reasoningTokens += c.reasoningTokens;
  t.costMicros += c.costMicros;
}

function tallyIn<K>(m: Map<K, Tally>, k: K, c: UsageCell): void {
  let t = m.get(k);
  if (t === undefined) m.set(k, (t = tally()));
  add(t, c);
}

const volumeOf = (t: Tally) => ({
  requests: t.requests, prompt_tokens: t.promptTokens, completion_tokens: t.completionTokens, cached_tokens: t.cachedTokens,
  cache_write_tokens: t.cacheWriteTokens, reasoning_tokens: t.reasoningTokens, cost: microsToInr(t.costMicros),
});

/** Most spend first, then most requests, then by name, so equal rows keep a stable order. */
const bySpend = <K extends string>([ak, a]: [K, Tally], [bk, b]: [K, Tally]) =>
  b.costMicros - a.costMicros || b.requests - a.requests || (ak < bk ? -1 : ak > bk ? 1 : 0);

function dailyRows(cells: Iterable<UsageCell>) {
  const m = new Map<string, Tally & { day: number; model: string }>();
  for (const c of cells) {
    const k = `${c.day}\u0000${c.model}`;
    let t = m.get(k);
    if (t === undefined) m.set(k, (t = { ...tally(), day: c.day, model: c.model }));
    add(t, c);
  }
  return [...m.values()]
    .sort((a, b) => a.day - b.day || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0))
    .map((t) => ({ day: istDayLabel(t.day), model: t.model, ...volumeOf(t) }));
}

const keyStatus = (k: ApiKeyLabel, now: number) => (k.revoked_at !== null ? 'revoked' : k.expires_at !== null && k.expires_at <= now ? 'expired' : 'active');

// ---- routes ---------------------------------------------------------------------------------

/** /me/usage, /me/usage/daily, /me/activity, /me/activity/events (spec 4.12), scoped to the session's active org. */
export function usageRoutes(d: ControlDeps & { rollup: UsageRollup }): RouteSpec[] {
  const { rollup } = d;
  const orgKeys = orgKeysReader(d.db);
  const events = usageEventsReader(d.db);

  return [
    {
      kind: 'json', method: 'get', path: '/me/usage', auth: 'session', response: UsageBody,
      summary: 'Per key: requests, tokens and ₹ cost today (IST) and over the last 30 IST days, keys without usage included',
      handle: async (ctx) => {
        queryParams(ctx.query, []);
        const orgId = ctx.session!.orgId;
        const now = d.clock.now();
        const today = istDayNumber(now);
        const from = today - WINDOW_DAYS + 1;
        const usage = await rollup.read(orgId);
        const perKey = new Map<string, { today: Tally; window: Tally }>();
        for (const c of usage.cells(from, today)) {
          let k = perKey.get(c.keyId);
          if (k === undefined) perKey.set(c.keyId, (k = { today: tally(), window: tally() }));
          add(k.window, c);
          if (c.day === today) add(k.today, c);
        }
        return {
          body: {
            today: istDayLabel(today),
            from: istDayLabel(from),
            data: orgKeys(orgId).map((k) => {
              const u = perKey.get(k.id);
              return {
                id: k.id, prefix: k.prefix, name: k.name, status: keyStatus(k, now),
                today: volumeOf(u?.today ?? tally()), last_30_days: volumeOf(u?.window ?? tally()),
              };
            }),
          },
        };
      },
    },
    {
      kind: 'json', method: 'get', path: '/me/usage/daily', auth: 'session', response: DailyBody,
      summary: 'The last 30 IST days by day and model: requests, tokens, ₹ cost (days with no usage are left out)',
      handle: async (ctx) => {
        queryParams(ctx.query, []);
        const to = istDayNumber(d.clock.now());
        const from = to - WINDOW_DAYS + 1;
        const usage = await rollup.read(ctx.session!.orgId);
        return { body: { from: istDayLabel(from), to: istDayLabel(to), data: dailyRows(usage.cells(from, to)) } };
      },
    },
    {
      kind: 'json', method: 'get', path: '/me/activity', auth: 'session', response: ActivityBody,
      summary: 'Spend and volume from..to (IST dates, inclusive; default the last 30 days; at most 366): by day and model, '
        + 'top models and keys, per-provider cost split, totals',
      handle: async (ctx) => {
        const q = queryParams(ctx.query, ['from', 'to']);
        const orgId = ctx.session!.orgId;
        const { from, to } = dayRange(q, istDayNumber(d.clock.now()));

        const usage = await rollup.read(orgId);
        const totals = tally();
        const models = new Map<string, Tally>();
        const keys = new Map<string, Tally>();
        const providers = new Map<string, { served: number; costMicros: number }>();
        const cells = usage.cells(from, to);
        for (const c of cells) {
          add(totals, c);
          tallyIn(models, c.model, c);
          tallyIn(keys, c.keyId, c);
          if (c.served > 0 && c.provider !== null) {
            let p = providers.get(c.provider);
            if (p === undefined) providers.set(c.provider, (p = { served: 0, costMicros: 0 }));
            p.served += c.served;
            p.costMicros += c.costMicros;
          }
        }
        const keyInfo = new Map(orgKeys(orgId).map((k) => [k.id, k]));
        return {
          body: {
            from: istDayLabel(from),
            to: istDayLabel(to),
            totals: volumeOf(totals),
            events: usage.span(from, to).rows,
            daily: dailyRows(cells),
            top_models: [...models].sort(bySpend).slice(0, TOP).map(([model, t]) => ({ model, ...volumeOf(t) })),
            top_keys: [...keys].sort(bySpend).slice(0, TOP).map(([id, t]) => {
              const k = keyInfo.get(id);
              return { id, prefix: k?.prefix ?? null, name: k?.name ?? null, ...volumeOf(t) };
            }),
            providers: [...providers]
              .sort(([an, a], [bn, b]) => b.costMicros - a.costMicros || b.served - a.served || (an < bn ? -1 : 1))
              .map(([provider, p]) => ({
                provider, requests: p.served, cost: microsToInr(p.costMicros),
                share: totals.costMicros === 0 ? 0 : Math.round((p.costMicros / totals.costMicros) * 10_000) / 10_000,
              })),
          },
        };
      },
    },
    {
      kind: 'json', method: 'get', path: '/me/activity/events', auth: 'session', response: EventsBody,
      summary: 'Per-attempt rows newest first (limit 1-200, default 50; filters model, key_id, request_id, status=ok|error|NNN, and from..to, '
        + 'IST dates, at most 366 days, when either is given); pass next_cursor as cursor for the next page',
      handle: async (ctx) => {
        const q = queryParams(ctx.query, ['limit', 'cursor', 'model', 'key_id', 'request_id', 'status', 'from', 'to']);
        const limit = parseLimit(q.get('limit'));
        const before = q.has('cursor') ? decodeCursor(q.get('cursor')!) : Number.MAX_SAFE_INTEGER;
        const filter: EventFilter = eventFilter(q);
        if (q.has('from') || q.has('to')) {
          const today = istDayNumber(d.clock.now());
          const { from, to } = dayRange(q, today);
          filter.range = (await eventRange(rollup, ctx.session!.orgId, from, to, today)).range;
        }
        const page = events(ctx.session!.orgId, before, limit, filter);
        return {
          body: {
            data: page.rows.map((r) => ({
              at: new Date(r.at).toISOString(), request_id: r.request_id, key_id: r.key_id, key_prefix: r.key_prefix,
              endpoint: r.endpoint, model: r.model, provider: r.provider, attempt: r.attempt, status: r.status, error_code: r.error_code,
              prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, cached_tokens: r.cached_tokens,
              cache_write_tokens: r.cache_write_tokens, reasoning_tokens: r.reasoning_tokens, cost: microsToInr(r.cost_micros),
              latency_ms: r.latency_ms, ttfb_ms: r.ttfb_ms, streamed: r.streamed === 1, billable: r.billable === 1, byok: r.byok === 1,
              usage_estimated: r.usage_estimated === 1, units: r.units, usage_clamped: r.usage_clamped === 1,
            })),
            next_cursor: page.nextBefore === null ? null : encodeCursor(page.nextBefore),
          },
        };
      },
    },
    usageExportRoute({ ...d, rollup, rows: usageExportReader(d.db), orgKeys }),
  ];
}
