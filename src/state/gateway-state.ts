import type { ChangeBus } from '../cluster/change-bus.js';
import type { DailyUsage } from '../control/billing/billing-service.js';
import type { TrafficReader } from '../control/traffic-book.js';
import type { KeyLookup } from '../dataplane/key-auth.js';
import type { RequestGate } from '../domain/request-gate.js';
import type { ResponseStore } from '../domain/response-store.js';
import type { MonitorStore } from '../domain/stores/monitor-store.js';
import type { Stores } from '../domain/stores/stores.js';
import type { UsageReportStore } from '../domain/stores/usage-report-store.js';
import type { ResponseCacheStore } from '../domain/stores/response-cache-store.js';
import type { UsageBatcher } from '../ledger/usage-batcher.js';

/** A change another process made: a key, a workspace's budget, or money. */
export type FeedChange = { seq: number; kind: 'key' | 'org' | 'workspace'; ref: string };
export type MoneyEvent = { id: number; org_id: string; amount_micros: number };

/**
 * Everything the composition root needs from where state lives, the same whichever that is:
 * one SQLite file for one gateway process (the default), or PostgreSQL and Redis shared by
 * several instances (docs/scale-out.md). Reads that may cross the network answer with promises
 * there; SQLite's answer synchronously where the hot path reads them.
 */
export interface GatewayState {
  /** What the `listening` log line names: the database file, or the PostgreSQL URL without its password. */
  readonly where: string;
  readonly stores: Stores;
  readonly monitorStore: MonitorStore;
  readonly keyLookup: KeyLookup;
  /** How long a known key is served while the key store does not answer (0 on SQLite). */
  readonly keyGraceMs: number;
  readonly gate: RequestGate;
  /** Credits and budget changes made elsewhere, for the limits. */
  moneyEvent(orgId: string, eventId: number, amountMicros: number): void;
  workspaceChanged(workspaceId: string): void;
  readonly ledger: UsageBatcher;
  readonly responses: ResponseStore & { sweep(): number | Promise<number> };
  /** The exact-match response cache: SQLite on one box, Redis with several instances. */
  readonly responseCache: ResponseCacheStore;
  readonly traffic: TrafficReader;
  readonly dailyUsage: DailyUsage & { start(): void; stop(): Promise<void> };
  readonly usageReports: UsageReportStore;
  /** The change feed and money events, read by id (the poll that follows the CLI and other instances). */
  readonly feed: {
    latestSeq(): number | Promise<number>;
    since(seq: number): FeedChange[] | Promise<FeedChange[]>;
    latestMoneyEventId(): number | Promise<number>;
    moneyEventsSince(id: number): MoneyEvent[] | Promise<MoneyEvent[]>;
  };
  /** Instant news of changes between instances (Redis pub/sub); null on one box. */
  readonly bus: ChangeBus | null;
  /** Takes a periodic job's round (one instance runs each); null on one box, where every round is this one's. */
  readonly claimRound: ((job: string) => Promise<boolean>) | null;
  hasAnyOrg(): Promise<boolean>;
  /** The server listens: the serve lock records where (SQLite). */
  listening(host: string, port: number): void;
  /** After the ledger drained: closes connections and releases what was held. */
  close(): Promise<void>;
}
