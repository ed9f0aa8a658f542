import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { KeyRecord } from '../../src/domain/key-record.js';
import type { Ticket } from '../../src/domain/request-gate.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { manualClock } from '../../src/lib/clock.js';
import { connectRedis, redisReady } from '../../src/cluster/redis-connection.js';
import { asyncLimitsReader } from '../../src/limits/async-limits-reader.js';
import { RedisLimitsGate, type RedisLimitsGateOptions } from '../../src/limits/redis-limits-gate.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { findKeyById, insertKey, type NewKey } from '../../src/store/keys.js';
import { insertMoneyEvent, insertOrg } from '../../src/store/orgs.js';
import { limitsReader } from '../../src/store/usage.js';
import type { RedisServer } from '../support/redis-server.js';

// 11:30 IST on 15 Nov 2026: far from any day or month boundary unless a test moves there.
export const MID_MONTH = Date.parse('2026-11-15T06:00:00.000Z');

/**
 * A database, a real Redis server and N RedisLimitsGates on it, each on its own connection (as N
 * gateway instances), sharing one manual clock.
 */
export class Cluster {
  dir = mkdtempSync(join(tmpdir(), 'gw-rlimits-'));
  db: Db = openDatabase(join(this.dir, 'gw.db'));
  clock = manualClock(MID_MONTH);
  saturated = false;
  conns: Redis[] = [];
  gates: RedisLimitsGate[] = [];
  #seq = 0;

  constructor(readonly redis: RedisServer) {}

  /** On a server shared by a test file's tests: emptied first. */
  static async on(redis: RedisServer): Promise<Cluster> {
    const c = new Cluster(redis);
    await (await c.peek()).flushall();
    return c;
  }

  async gatesOf(n: number, o: Partial<RedisLimitsGateOptions> = {}): Promise<RedisLimitsGate[]> {
    const made: RedisLimitsGate[] = [];
    for (let i = 0; i < n; i++) {
      const redis = connectRedis(this.redis.url, { maxReconnectDelayMs: 50 });
      await redisReady(redis);
      this.conns.push(redis);
      made.push(new RedisLimitsGate({
        redis, reader: asyncLimitsReader(limitsReader(this.db)), gatewayRpm: 120, clock: this.clock,
        ledgerSaturated: () => this.saturated, ...o,
      }));
    }
    this.gates.push(...made);
    return made;
  }

  org(creditMicros: number): { orgId: string; workspaceId: string } {
    const o = insertOrg(this.db, `org-${++this.#seq}`, { now: Date.now() });
    if (creditMicros > 0) insertMoneyEvent(this.db, o.orgId, 'operator_credit', creditMicros, { now: Date.now() });
    return o;
  }

  key(o: { orgId: string; workspaceId: string }, extra: Partial<NewKey> = {}): KeyRecord {
    const { id } = insertKey(this.db, { orgId: o.orgId, workspaceId: o.workspaceId, name: `k${++this.#seq}`, tier: 'standard', ...extra }, Date.now());
    const { hash: _hash, ...rec } = findKeyById(this.db, id)!;
    return rec;
  }

  /** A raw connection for looking at what the gates wrote. */
  async peek(): Promise<Redis> {
    const r = connectRedis(this.redis.url);
    await redisReady(r);
    this.conns.push(r);
    return r;
  }

  async close(): Promise<void> {
    for (const c of this.conns) c.disconnect();
    this.conns = [];
    this.gates = [];
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export type Outcome = { ok: true; ticket: Ticket; gate: RedisLimitsGate } | { ok: false; error: GatewayError };

/** enter() then admit() with a hold, as admission.ts does; a refusal is returned, not thrown. */
export async function attempt(gate: RedisLimitsGate, key: KeyRecord, hold = 0): Promise<Outcome> {
  let ticket: Ticket | null = null;
  try {
    ticket = await gate.enter(key);
    await gate.admit(ticket, hold);
    return { ok: true, ticket, gate };
  } catch (e) {
    if (ticket) await gate.settle(ticket, 0);
    if (e instanceof GatewayError) return { ok: false, error: e };
    throw e;
  }
}

/** n attempts at once, spread round-robin over the gates (and over the keys). */
export function burst(gates: RedisLimitsGate[], keys: KeyRecord[], n: number, hold = 0): Promise<Outcome[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => attempt(gates[i % gates.length], keys[i % keys.length], hold)));
}

export const admittedOf = (os: Outcome[]) => os.filter((o) => o.ok).length;
export const codesOf = (os: Outcome[]) => [...new Set(os.flatMap((o) => (o.ok ? [] : [o.error.code])))];
export const retryAfter = (e: GatewayError) => Number(e.headers?.['retry-after']);
