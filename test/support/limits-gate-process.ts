// One gateway instance's RedisLimitsGate in a process of its own (the multi-process limits test):
// started with REDIS_URL and DB_PATH, it answers each {keyId, n, hold} message with how many of n
// concurrent requests it admitted and the codes of the others.
import { connectRedis, redisReady } from '../../src/cluster/redis-connection.js';
import { systemClock } from '../../src/lib/clock.js';
import { asyncLimitsReader } from '../../src/limits/async-limits-reader.js';
import { RedisLimitsGate } from '../../src/limits/redis-limits-gate.js';
import { openDatabase } from '../../src/store/database.js';
import { findKeyById } from '../../src/store/keys.js';
import { limitsReader } from '../../src/store/usage.js';

export interface BurstOrder { keyIds: string[]; n: number; hold: number }
export interface BurstResult { admitted: number; codes: string[] }

const db = openDatabase(process.env.DB_PATH!, { readonly: true });
const redis = connectRedis(process.env.REDIS_URL!);
await redisReady(redis);
const gate = new RedisLimitsGate({ redis, reader: asyncLimitsReader(limitsReader(db)), gatewayRpm: 120, clock: systemClock, ledgerSaturated: () => false });

process.on('message', async (m: BurstOrder | 'exit') => {
  if (m === 'exit') {
    redis.disconnect();
    db.close();
    process.exit(0);
  }
  const keys = m.keyIds.map((id) => {
    const { hash: _hash, ...k } = findKeyById(db, id)!;
    return k;
  });
  const out = await Promise.all(Array.from({ length: m.n }, (_, i) => gate.enterAdmitted(keys[i % keys.length], m.hold).then(() => null, (e: { code: string }) => e.code)));
  const result: BurstResult = { admitted: out.filter((x) => x === null).length, codes: [...new Set(out.filter((x): x is string => x !== null))] };
  process.send!(result);
});
process.send!('ready');
