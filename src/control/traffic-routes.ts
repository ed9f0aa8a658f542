import { Type } from '@sinclair/typebox';
import type { Clock } from '../lib/clock.js';
import { errors } from '../errors/catalog.js';
import { modelIdRoutes, type RouteSpec, route } from '../domain/route-spec.js';
import type { TrafficBook } from './traffic-book.js';

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);
const Day = Type.String({ description: 'first IST day of the window, YYYY-MM-DD' });

const StatsBody = Type.Object({
  model: Type.String(),
  window_days: Type.Integer(),
  since: Day,
  requests: Type.Integer({ description: 'requests served' }),
  attempts: Type.Integer({ description: 'upstream attempts that reflect on the providers (client departures and refused requests left out)' }),
  success_rate: Nullable(Type.Number({ description: 'successful attempts / attempts, 0..1; null without traffic' })),
  latency_ms: Type.Object({
    p50: Nullable(Type.Number()),
    p95: Nullable(Type.Number()),
  }, { description: 'time to the first byte of the answer, over successful attempts' }),
  tokens_per_second: Nullable(Type.Number({ description: 'output tokens per second of answer time, over successful attempts' })),
});

const RankingsBody = Type.Object({
  windows: Type.Array(Type.Object({
    days: Type.Integer(),
    since: Day,
    data: Type.Array(Type.Object({
      rank: Type.Integer(),
      model: Type.String(),
      tokens: Type.Integer({ description: 'prompt + completion tokens of the requests served' }),
      requests: Type.Integer(),
      share: Type.Number({ description: 'fraction of the window\'s tokens, 0..1' }),
    })),
  })),
});

export interface TrafficRouteDeps {
  traffic: TrafficBook;
  hasModel(id: string): boolean;
  clock: Clock;
}

/** Public traffic reads across all orgs: per-model stats over 7 days, and rankings by tokens. */
export function trafficRoutes(d: TrafficRouteDeps): RouteSpec[] {
  const stats = async (id: string) => {
    if (!d.hasModel(id)) throw errors.modelNotFound(id);
    await d.traffic.ready;
    return { body: d.traffic.modelStats(id, d.clock.now()) };
  };
  return [
    ...modelIdRoutes({
      kind: 'json', method: 'get', prefix: '/v1/models', suffix: '/stats', auth: 'public', response: StatsBody,
      summary: '7-day traffic of one model on this gateway: success rate, p50 and p95 latency, tokens per second',
    }, stats),
    route({
      kind: 'json', method: 'get', path: '/v1/rankings', auth: 'public', response: RankingsBody,
      summary: 'Most-used catalog models on this gateway by token volume, over the last 7 and 30 days',
      handle: async () => {
        await d.traffic.ready;
        return { body: d.traffic.rankings(d.clock.now()) };
      },
    }),
  ];
}
