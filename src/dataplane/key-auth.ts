import { LRUCache } from 'lru-cache';
import { errors } from '../errors/catalog.js';
import { hashApiKey, isWellFormedApiKey } from '../lib/api-key.js';
import type { Clock } from '../lib/clock.js';
import type { KeyRecord } from '../domain/key-record.js';

export type KeyLookup = (hash: string) => KeyRecord | undefined;

const MISSING = errors.invalidApiKey('Missing API key: send Authorization: Bearer <key>');
const MALFORMED = errors.invalidApiKey('Malformed API key');
const UNKNOWN = errors.invalidApiKey('Unknown API key');
const REVOKED = errors.invalidApiKey('API key has been revoked');
const EXPIRED = errors.invalidApiKey('API key has expired');
const NOT_FOUND = Symbol('not found');

/**
 * Resolves `Authorization: Bearer gw-…` to a key record. Records are cached by hash for at most
 * the configured TTL (≤ 60 s, spec 2), unknown hashes briefly too so a flood of bad keys does not
 * reach SQLite. Changes made anywhere reach it through invalidate() (in-process or change feed).
 */
export class KeyAuthenticator {
  readonly #lookup: KeyLookup;
  readonly #clock: Clock;
  readonly #cache: LRUCache<string, KeyRecord | typeof NOT_FOUND>;
  readonly #hashById = new Map<string, string>();
  /**
   * Authorization headers already seen, with their key's hash: a header is checked and hashed
   * once, not on every request (the checks and SHA-256 were ~5,000 of the ~140,000 instructions
   * of a request, bench:instructions). A pure function of the header, so it is never invalidated;
   * emptied when full. It holds raw keys in memory, as every request in flight does anyway.
   */
  readonly #hashByHeader = new Map<string, string>();
  readonly #maxHeaders: number;

  constructor(lookup: KeyLookup, clock: Clock, opts: { ttlMs: number; max: number }) {
    this.#lookup = lookup;
    this.#clock = clock;
    this.#maxHeaders = opts.max;
    this.#cache = new LRUCache({
      max: opts.max, ttl: Math.max(1, opts.ttlMs), ttlAutopurge: false, updateAgeOnGet: false,
      // Keep the id -> hash index no larger than the cache itself.
      dispose: (rec) => {
        if (rec !== NOT_FOUND) this.#hashById.delete(rec.id);
      },
    });
  }

  /** Throws 401 invalid_api_key; never touches the database for a cached key. */
  authenticate(authorization: string): KeyRecord {
    const hash = this.#hashByHeader.get(authorization) ?? this.#hashOf(authorization);
    let rec = this.#cache.get(hash);
    if (rec === undefined) {
      const found = this.#lookup(hash);
      rec = found ?? NOT_FOUND;
      this.#cache.set(hash, rec, found ? undefined : { ttl: Math.min(5_000, this.#cache.ttl) });
      if (found) this.#hashById.set(found.id, hash);
    }
    if (rec === NOT_FOUND) throw UNKNOWN;
    if (rec.revokedAt !== null) throw REVOKED;
    if (rec.expiresAt !== null && rec.expiresAt <= this.#clock.now()) throw EXPIRED;
    return rec;
  }

  /** Checks a header not seen before and remembers its hash. */
  #hashOf(authorization: string): string {
    if (!authorization) throw MISSING;
    if (authorization.length < 8 || authorization.slice(0, 7).toLowerCase() !== 'bearer ') throw MALFORMED;
    const key = authorization.slice(7).trim();
    if (!isWellFormedApiKey(key)) throw MALFORMED;
    const hash = hashApiKey(key);
    if (this.#hashByHeader.size >= this.#maxHeaders) this.#hashByHeader.clear();
    this.#hashByHeader.set(authorization, hash);
    return hash;
  }

  /** Drops a key's cached record so the next request reads it afresh. */
  invalidate(keyId: string): void {
    const hash = this.#hashById.get(keyId);
    if (hash === undefined) return;
    this.#cache.delete(hash);
  }
}
