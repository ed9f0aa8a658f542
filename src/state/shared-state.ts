import type { Config } from '../config/schema.js';
import { ChangeBus } from '../cluster/change-bus.js';
import { connectRedis } from '../cluster/redis-connection.js';
import { roundClaims } from '../cluster/round-claims.js';
import { redisResponseCache } from '../cluster/redis-response-cache.js';
import type { LimitsReader } from '../domain/limits-reader.js';
import { UsageBatcher } from '../ledger/usage-batcher.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { redactUrl } from '../lib/redact-url.js';
import { LimitsGate } from '../limits/limits-gate.js';
import { RedisLimitsGate, type RedisOutagePolicy } from '../limits/redis-limits-gate.js';
import { SpendBook } from '../limits/spend-book.js';
import { postgresChangeFeedReader } from '../store/postgres/pg-change-feed.js';
import { openPostgres } from '../store/postgres/pg-database.js';
import { postgresKeyByHash } from '../store/postgres/pg-keys.js';
import { postgresLimitsReader } from '../store/postgres/pg-limits-reader.js';
import { postgresMonitorStore } from '../store/postgres/pg-monitor.js';
import { postgresHasAnyOrg } from '../store/postgres/pg-orgs.js';
import { postgresStores } from '../store/postgres/pg-stores.js';
import { postgresResponseStore } from '../store/postgres/pg-stored-responses.js';
import { postgresTrafficReader } from '../store/postgres/pg-traffic.js';
import { postgresUsageReports } from '../store/postgres/pg-usage-reports.js';
import { PgUsageRollup } from '../store/postgres/pg-usage-rollup.js';
import type { GatewayState } from './gateway-state.js';
import { StartRefused } from './start-refused.js';

/** Every Redis key this gateway writes starts with it (limits, holds, round claims). */
const PREFIX = 'gw:';

/**
 * What a limits gate serving alone during a Redis outage starts from (redis.onUnavailable
 * `local`): nothing, since PostgreSQL cannot be read synchronously on the hot path. Per-minute
 * limits and the gateway cap then hold per instance; daily counts and budgets count only what this
 * instance served since the outage began, and balances are not checked. The operator who chooses
 * `local` accepts that for at most redis.localForMs (docs/scale-out.md).
 */
const OUTAGE_READER: LimitsReader = {
  keyDailyCount: () => 0,
  orgTrialDailyCount: () => 0,
  monthlySpend: () => 0,
  orgBalance: () => ({ balanceMicros: Number.MAX_SAFE_INTEGER, moneyEventId: 0 }),
  workspaceBudget: () => null,
  moneyEventsSince: () => [],
  latestMoneyEventId: () => 0,
};

/**
 * Several instances on one PostgreSQL (everything durable, as SQLite holds it for one box) and
 * one Redis (what the hot path shares: rolling minutes, day counts, monthly spend, balances and
 * holds, and the change channel). Breakers, key caches and traffic statistics stay per instance.
 */
export async function openSharedState(config: Readonly<Config>, o: { clock: Clock; log: Logger }): Promise<GatewayState> {
  const { clock, log } = o;
  // Saved provider keys are sealed with the master key: a key file made by each instance for itself would open on that instance only.
  if (!process.env.GW_MASTER_KEY && !config.byok.masterKeyFile) {
    throw new StartRefused('with store.url (GW_STORE), every instance needs the same master key: set GW_MASTER_KEY (64 hex characters) ' +
      'or byok.masterKeyFile on each (docs/scale-out.md)');
  }
  const storeUrl = config.store.url!;
  const redisUrl = config.redis.url!;
  const sql = await openPostgres(storeUrl, { max: config.store.poolSize });
  const redis = connectRedis(redisUrl);
  redis.on('error', () => {});
  const bus = ChangeBus.connect(redisUrl, { log });
  const closeEarly = async () => {
    bus.close();
    redis.disconnect();
    await sql.end({ timeout: 1 });
  };
  try {
    await bus.ready();
  } catch (e) {
    await closeEarly();
    throw new Error(`Redis at ${redactUrl(redisUrl)} does not answer: ${(e as Error).message}`);
  }
  const ledger = new UsageBatcher({
    store: { kind: 'postgres', url: storeUrl, spoolPath: `${config.dbPath}.spool.jsonl`, maxSpoolBytes: config.ledger.maxSpoolMb * 1_048_576 },
    ...config.ledger, log, deadLetterPath: `${config.dbPath}.unwritten.jsonl`,
  });
  const reader = postgresLimitsReader(sql);
  const outage: RedisOutagePolicy = config.redis.onUnavailable === 'local'
    ? {
      mode: 'local', localForMs: config.redis.localForMs,
      gate: new LimitsGate({ gatewayRpm: config.limits.gatewayRpm, clock, book: new SpendBook(OUTAGE_READER), ledgerSaturated: () => ledger.saturated }),
    }
    : { mode: 'fail_closed' };
  const gate = new RedisLimitsGate({
    redis, reader, gatewayRpm: config.limits.gatewayRpm, clock, ledgerSaturated: () => ledger.saturated, outage, prefix: PREFIX, log,
    lease: config.redis.leaseSlots > 0
      ? { slots: config.redis.leaseSlots, periodMs: config.redis.leaseMs, moneyRequests: config.redis.leaseRequests }
      : undefined,
  });
  const feed = postgresChangeFeedReader(sql);
  const rollup = new PgUsageRollup(sql, { onError: (e) => log.warn('usage rollup: fold failed; the next one retries', { err: String(e) }) });
  const failed = (what: string) => (e: unknown) => log.warn(`${what} failed`, { err: String(e) });
  return {
    where: redactUrl(storeUrl),
    stores: postgresStores(sql),
    monitorStore: postgresMonitorStore(sql),
    keyLookup: postgresKeyByHash(sql),
    keyGraceMs: config.store.keyGraceMs,
    gate,
    moneyEvent: (orgId, eventId, amountMicros) => void gate.applyMoneyEvent(orgId, eventId, amountMicros).catch(failed('applying a money event to the shared balance')),
    workspaceChanged: (id) => void gate.reloadWorkspace(id).catch(failed('reloading a workspace budget')),
    ledger,
    responses: postgresResponseStore(sql, config.responses.retentionDays, () => clock.now()),
    responseCache: redisResponseCache(redis, PREFIX),
    traffic: postgresTrafficReader(sql),
    dailyUsage: rollup,
    usageReports: postgresUsageReports(sql, rollup),
    feed: {
      latestSeq: () => feed.latestSeq(),
      since: (seq) => feed.since(seq),
      latestMoneyEventId: () => reader.latestMoneyEventId(),
      moneyEventsSince: (id) => reader.moneyEventsSince(id),
    },
    bus,
    claimRound: roundClaims(redis, PREFIX, config.monitoring.intervalMs),
    hasAnyOrg: () => postgresHasAnyOrg(sql),
    listening: () => {},
    async close() {
      await ledger.close();
      // After the requests drained: leased slots and money go back, their costs reach Redis.
      await gate.close().catch((e: unknown) => log.warn('giving leases back failed; they lapse', { err: String(e) }));
      bus.close();
      redis.disconnect();
      await sql.end({ timeout: 5 });
    },
  };
}
