import { hostname } from 'node:os';
import type { Config } from '../config/schema.js';
import { UsageBatcher } from '../ledger/usage-batcher.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { LimitsGate } from '../limits/limits-gate.js';
import { SpendBook } from '../limits/spend-book.js';
import { changeFeedReader } from '../store/change-log.js';
import { openDatabase } from '../store/database.js';
import { keyByHashReader } from '../store/keys.js';
import { sqliteMonitorStore } from '../store/monitor-store.js';
import { hasAnyOrg } from '../store/orgs.js';
import { acquireServeLock, type ServeHolder } from '../store/serve-lock.js';
import { sqliteStores } from '../store/sqlite-stores.js';
import { responseStore } from '../store/stored-responses.js';
import { trafficReader } from '../store/traffic.js';
import { limitsReader } from '../store/usage.js';
import { sqliteUsageReports, UsageRollup } from '../store/usage-reports.js';
import { sqliteResponseCache } from '../store/response-cache.js';
import type { GatewayState } from './gateway-state.js';
import { StartRefused } from './start-refused.js';

function describeHolder(h: ServeHolder | null): string {
  if (!h) return 'another gateway (starting up)';
  const where = h.port ? ` on ${h.host}:${h.port}` : ' (starting up)';
  return `the gateway with pid ${h.pid} on host ${h.hostname}${where}`;
}

/**
 * One SQLite file for one gateway process: limits, balances and holds in this process's memory,
 * read from the file at first sight; the ledger written by a worker thread.
 */
export function openSqliteState(config: Readonly<Config>, o: { clock: Clock; log: Logger; startedAt: number }): GatewayState {
  const { clock, log } = o;
  // One gateway per database: two would each admit requests against their own in-memory balance.
  const lock = acquireServeLock(config.dbPath, { pid: process.pid, hostname: hostname(), host: config.host, port: 0, startedAt: o.startedAt });
  if ('heldBy' in lock) {
    throw new StartRefused(`database ${config.dbPath} is already served by ${describeHolder(lock.heldBy)}; ` +
      'stop that gateway first, or give this one another dbPath (GW_DB or --db)');
  }
  const db = openDatabase(config.dbPath);
  const ledger = new UsageBatcher({ dbPath: config.dbPath, ...config.ledger, log, deadLetterPath: `${config.dbPath}.unwritten.jsonl` });
  const reader = limitsReader(db);
  const book = new SpendBook(reader);
  const feed = changeFeedReader(db);
  // One usage rollup for every report that sums the ledger (usage, activity, billing), kept in the database.
  const rollup = new UsageRollup(db, { onError: (e) => log.warn('usage rollup: fold failed; the next one retries', { err: String(e) }) });
  return {
    where: config.dbPath,
    stores: sqliteStores(db),
    monitorStore: sqliteMonitorStore(db),
    keyLookup: keyByHashReader(db),
    keyGraceMs: 0,
    gate: new LimitsGate({ gatewayRpm: config.limits.gatewayRpm, clock, book, ledgerSaturated: () => ledger.saturated }),
    moneyEvent: (orgId, eventId, amountMicros) => book.applyMoneyEvent(orgId, eventId, amountMicros),
    workspaceChanged: (id) => book.reloadWorkspace(id),
    ledger,
    responses: responseStore(db, config.responses.retentionDays, () => clock.now()),
    responseCache: sqliteResponseCache(db, config.responseCache.maxTotalMb * 1_048_576),
    traffic: trafficReader(db),
    dailyUsage: rollup,
    usageReports: sqliteUsageReports(db, rollup),
    feed: {
      latestSeq: () => feed.latestSeq(),
      since: (seq) => feed.since(seq),
      latestMoneyEventId: () => reader.latestMoneyEventId(),
      moneyEventsSince: (id) => reader.moneyEventsSince(id),
    },
    bus: null,
    claimRound: null,
    hasAnyOrg: async () => hasAnyOrg(db),
    listening: (host, port) => lock.listening(host, port),
    async close() {
      await ledger.close();
      db.close();
      lock.release();
    },
  };
}
