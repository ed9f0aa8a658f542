import type { Db } from './database.js';
import { decodeAnswer, encodeAnswer, type CachedAnswer, type ResponseCacheStore } from '../domain/stores/response-cache-store.js';

/** Expired answers are swept on a put at most this often. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The response cache in SQLite, bounded to `maxBytes` of answers: past it, the answers closest to
 * expiring go first. Reads skip expired rows, so a sweep is only about space.
 */
export function sqliteResponseCache(db: Db, maxBytes: number): ResponseCacheStore & { bytes(): number } {
  const get = db.prepare('SELECT entry, cost_micros AS cost FROM response_cache WHERE key = ? AND expires_at > ?');
  const put = db.prepare(`INSERT INTO response_cache (key, org_id, expires_at, bytes, entry, cost_micros) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET org_id = excluded.org_id, expires_at = excluded.expires_at, bytes = excluded.bytes, entry = excluded.entry,
      cost_micros = excluded.cost_micros`);
  const total = db.prepare('SELECT COALESCE(SUM(bytes), 0) FROM response_cache').pluck();
  const expired = db.prepare('DELETE FROM response_cache WHERE expires_at <= ?');
  const oldest = db.prepare('DELETE FROM response_cache WHERE key IN (SELECT key FROM response_cache ORDER BY expires_at LIMIT ?)');
  let bytes = total.get() as number;
  let swept = 0;
  const shrink = db.transaction((now: number) => {
    swept = now;
    expired.run(now);
    bytes = total.get() as number;
    while (bytes > maxBytes) {
      oldest.run(16);
      bytes = total.get() as number;
    }
  });
  return {
    get(key: string, now: number): CachedAnswer | null {
      const row = get.get(key, now) as { entry: string; cost: number } | undefined;
      return row === undefined ? null : decodeAnswer(row.entry, row.cost);
    },
    put(key: string, orgId: string, answer: CachedAnswer, now: number, ttlMs: number): void {
      const text = encodeAnswer(answer, false);
      put.run(key, orgId, now + ttlMs, text.length, text, answer.costMicros);
      bytes += text.length;
      if (bytes > maxBytes || now - swept >= SWEEP_EVERY_MS) shrink(now);
    },
    bytes: () => bytes,
  };
}
