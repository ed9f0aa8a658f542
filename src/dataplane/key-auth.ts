import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import { errors } from '../errors/catalog.js';
import { hashApiKey, isWellFormedApiKey } from '../lib/api-key.js';
import type { Clock } from '../lib/clock.js';
import type { KeyRecord } from '../domain/key-record.js';

/**
 * Reads a key by its hash: synchronously on SQLite; a promise on PostgreSQL, whose rejection
 * means the store did not answer (not that the key is unknown).
 */
export type KeyLookup = (hash: string) => KeyRecord | undefined | Promise<KeyRecord | undefined>;

const MISSING = errors.invalidApiKey('Missing API key: send Authorization: Bearer <key>');
const MALFORMED = errors.invalidApiKey('Malformed API key');
const UNKNOWN = errors.invalidApiKey('Unknown API key');
const REVOKED = errors.invalidApiKey('API key has been revoked');
const EXPIRED = errors.invalidApiKey('API key has expired');
const STORE_DOWN = errors.serviceUnavailable('The key store is unreachable and this key is not cached; retry shortly');
const NOT_FOUND = Symbol('not found');
/** How long a hash that names no key is remembered, at most. */
const UNKNOWN_TTL_MS = 5_000;

/** A key hash's record (or NOT_FOUND) as read from the store, until `until` (performance.now()); 0 once dropped. */
interface Cached {
  readonly hash: string;
  readonly rec: KeyRecord | typeof NOT_FOUND;
  until: number;
  /** When the store last answered for it (performance.now()): the grace period counts from here. */
  readonly readAt: number;
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
  /** Reads of the remote store in flight, by hash. */
  readonly #loading = new Map<string, Promise<Cached>>();
  readonly #graceMs: number;
  readonly #onStoreError: ((e: unknown) => void) | undefined;

  /**
   * graceMs: how long a key last read from a remote store is still served while that store does
   * not answer (0 with SQLite, which cannot be unreachable).
   */
  constructor(lookup: KeyLookup, clock: Clock, opts: { ttlMs: number; max: number; graceMs?: number; onStoreError?: (e: unknown) => void }) {
    this.#lookup = lookup;
    this.#clock = clock;
    this.#maxHeaders = opts.max;
    this.#graceMs = opts.graceMs ?? 0;
    this.#onStoreError = opts.onStoreError;
    this.#ttlMs = Math.max(1, opts.ttlMs);
    this.#byHash = new LRUCache({
      max: opts.max,
      dispose: (c) => this.#drop(c),
    });
  }

  /**
   * Throws 401 invalid_api_key; never touches the database for a cached key. A promise only when
   * the key must be read from a remote store (PostgreSQL) and is not cached fresh.
   */
  authenticate(authorization: string): KeyRecord | Promise<KeyRecord> {
    let c = this.#byHeader.get(authorization);
    if (c === undefined || c.until <= performance.now()) {
      const loaded = this.#load(authorization, c);
      if (loaded instanceof Promise) return loaded.then((l) => this.#check(l));
      c = loaded;
    }
    return this.#check(c);
  }

  #check(c: Cached): KeyRecord {
    const rec = c.rec;
    if (rec === NOT_FOUND) throw UNKNOWN;
    if (rec.revokedAt !== null) throw REVOKED;
    if (rec.expiresAt !== null && rec.expiresAt <= this.#clock.now()) throw EXPIRED;
    return rec;
  }

  /** The header's record from the cache by hash, else the store; `stale` is what the header last had. */
  #load(authorization: string, stale: Cached | undefined): Cached | Promise<Cached> {
    const hash = stale?.hash ?? this.#hashOf(authorization);
    const c = this.#byHash.get(hash);
    if (c !== undefined && c.until > performance.now()) return this.#remember(authorization, c);
    // One read per hash in flight, however many requests carry the key meanwhile.
    let pending = this.#loading.get(hash);
    if (pending === undefined) {
      const found = this.#lookup(hash);
      if (!(found instanceof Promise)) return this.#remember(authorization, this.#store(hash, found));
      pending = found.then((rec) => this.#store(hash, rec), (e: unknown) => this.#unreachable(hash, c ?? stale, e));
      pending.finally(() => this.#loading.delete(hash)).catch(() => {});
      this.#loading.set(hash, pending);
    }
    return pending.then((got) => this.#remember(authorization, got));
  }

  #store(hash: string, found: KeyRecord | undefined): Cached {
    const ttl = found === undefined ? Math.min(UNKNOWN_TTL_MS, this.#ttlMs) : this.#ttlMs;
    const c: Cached = { hash, rec: found ?? NOT_FOUND, until: performance.now() + ttl, readAt: performance.now() };
    this.#byHash.set(hash, c);
    if (found !== undefined) this.#byId.set(found.id, c);
    return c;
  }

  /**
   * The store did not answer: a key read from it within the grace period is served as last read
   * (issue 19: inference keeps serving known keys while PostgreSQL is away, for a bounded time);
   * any other key is refused 503, never 401, since it may well be valid.
   */
  #unreachable(hash: string, last: Cached | undefined, e: unknown): Cached {
    this.#onStoreError?.(e);
    if (last !== undefined && last.rec !== NOT_FOUND && performance.now() - last.readAt <= this.#graceMs) {
      // Asked again after a short while, not on every request.
      const c: Cached = { hash, rec: last.rec, until: performance.now() + Math.min(1_000, this.#ttlMs), readAt: last.readAt };
      this.#byHash.set(hash, c);
      this.#byId.set(last.rec.id, c);
      return c;
    }
    throw STORE_DOWN;
  }

  #remember(authorization: string, c: Cached): Cached {
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
