import { performance } from 'node:perf_hooks';
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
/** How long a hash that names no key is remembered, at most. */
const UNKNOWN_TTL_MS = 5_000;

/** A key hash's record (or NOT_FOUND) as read from the store, until `until` (performance.now()); 0 once dropped. */
interface Cached {
  readonly hash: string;
  readonly rec: KeyRecord | typeof NOT_FOUND;
  until: number;
}

/**
 * Resolves `Authorization: Bearer gw-…` to a key record. Records are cached by hash for at most
 * the configured TTL (≤ 60 s, spec 2), unknown hashes briefly too so a flood of bad keys does not
 * reach SQLite. Changes made anywhere reach it through invalidate() (in-process or change feed).
 */
export class KeyAuthenticator {
  readonly #lookup: KeyLookup;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  /** Bounds the records kept (least recently read first out); a record it drops is dropped everywhere. */
  readonly #byHash: LRUCache<string, Cached>;
  readonly #byId = new Map<string, Cached>();
  /**
   * Authorization headers already seen, with their key's cached record: a header is checked and
   * hashed once, not on every request (the checks and SHA-256 were ~5,000 of the ~140,000
   * instructions of a request, bench:instructions), and a request whose record is fresh costs one
   * map read. Reading the LRU by hash on every request cost ~5k more (its get, and a 1 ms timer
   * lru-cache arms to cache its clock, which fired on nearly every request under callgrind).
   * Emptied when full. It holds raw keys in memory, as every request in flight does anyway.
   */
  readonly #byHeader = new Map<string, Cached>();
  readonly #maxHeaders: number;

  constructor(lookup: KeyLookup, clock: Clock, opts: { ttlMs: number; max: number }) {
    this.#lookup = lookup;
    this.#clock = clock;
    this.#maxHeaders = opts.max;
    this.#ttlMs = Math.max(1, opts.ttlMs);
    this.#byHash = new LRUCache({
      max: opts.max,
      dispose: (c) => this.#drop(c),
    });
  }

  /** Throws 401 invalid_api_key; never touches the database for a cached key. */
  authenticate(authorization: string): KeyRecord {
    let c = this.#byHeader.get(authorization);
    if (c === undefined || c.until <= performance.now()) c = this.#load(authorization, c);
    const rec = c.rec;
    if (rec === NOT_FOUND) throw UNKNOWN;
    if (rec.revokedAt !== null) throw REVOKED;
    if (rec.expiresAt !== null && rec.expiresAt <= this.#clock.now()) throw EXPIRED;
    return rec;
  }

  /** The header's record from the cache by hash, else the store; `stale` is what the header last had. */
  #load(authorization: string, stale: Cached | undefined): Cached {
    const hash = stale?.hash ?? this.#hashOf(authorization);
    let c = this.#byHash.get(hash);
    if (c === undefined || c.until <= performance.now()) {
      const found = this.#lookup(hash);
      const ttl = found === undefined ? Math.min(UNKNOWN_TTL_MS, this.#ttlMs) : this.#ttlMs;
      c = { hash, rec: found ?? NOT_FOUND, until: performance.now() + ttl };
      this.#byHash.set(hash, c);
      if (found !== undefined) this.#byId.set(found.id, c);
    }
    if (this.#byHeader.size >= this.#maxHeaders) this.#byHeader.clear();
    this.#byHeader.set(authorization, c);
    return c;
  }

  /** Checks a header not seen before and returns its key's hash. */
  #hashOf(authorization: string): string {
    if (!authorization) throw MISSING;
    if (authorization.length < 8 || authorization.slice(0, 7).toLowerCase() !== 'bearer ') throw MALFORMED;
    const key = authorization.slice(7).trim();
    if (!isWellFormedApiKey(key)) throw MALFORMED;
    return hashApiKey(key);
  }

  /** A record leaves the cache: headers that point at it read it afresh. */
  #drop(c: Cached): void {
    c.until = 0;
    if (c.rec !== NOT_FOUND && this.#byId.get(c.rec.id) === c) this.#byId.delete(c.rec.id);
  }

  /** Drops a key's cached record so the next request reads it afresh. */
  invalidate(keyId: string): void {
    const c = this.#byId.get(keyId);
    if (c === undefined) return;
    this.#byHash.delete(c.hash);
    this.#drop(c);
  }
}
