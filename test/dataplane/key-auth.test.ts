import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyAuthenticator } from '../../src/dataplane/key-auth.js';
import type { KeyRecord } from '../../src/domain/key-record.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { hashApiKey, mintApiKey } from '../../src/lib/api-key.js';
import { manualClock } from '../../src/lib/clock.js';

function record(id: string, extra: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id, orgId: 'org_a', workspaceId: 'ws_a', name: id, prefix: 'gw-xxxxxxxxx', tier: 'standard', scope: 'full',
    rpmLimit: null, dailyLimit: null, monthlyBudgetMicros: null, expiresAt: null, revokedAt: null, ...extra,
  };
}

/** A key store the test can change, counting its lookups. */
function store(): { byHash: Map<string, KeyRecord>; lookups: number; lookup: (h: string) => KeyRecord | undefined } {
  const s = {
    byHash: new Map<string, KeyRecord>(),
    lookups: 0,
    lookup: (h: string) => {
      s.lookups++;
      return s.byHash.get(h);
    },
  };
  return s;
}

/** The authenticator answers a synchronous lookup synchronously. */
function authed(r: KeyRecord | Promise<KeyRecord>): KeyRecord {
  assert.ok(!(r instanceof Promise), 'a synchronous store answers synchronously');
  return r as KeyRecord;
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof GatewayError, String(e));
    assert.is(e.status, 401);
    assert.is(e.code, 'invalid_api_key');
    return e.message;
  }
  assert.unreachable('expected 401 invalid_api_key');
  return '';
}

test('a header seen before is still checked against the current record: revoked and expired keys are refused', () => {
  const s = store();
  const clock = manualClock(1_000_000);
  const auth = new KeyAuthenticator(s.lookup, clock, { ttlMs: 60_000, max: 100 });
  const key = mintApiKey('standard');
  s.byHash.set(hashApiKey(key), record('k1', { expiresAt: 2_000_000 }));
  assert.is(authed(auth.authenticate(`Bearer ${key}`)).id, 'k1');
  assert.is(authed(auth.authenticate(`Bearer ${key}`)).id, 'k1');
  assert.is(s.lookups, 1, 'the record is cached');

  s.byHash.set(hashApiKey(key), record('k1', { revokedAt: 1_500_000 }));
  auth.invalidate('k1');
  assert.match(refusal(() => auth.authenticate(`Bearer ${key}`)), /revoked/);

  s.byHash.set(hashApiKey(key), record('k1', { expiresAt: 2_000_000 }));
  auth.invalidate('k1');
  clock.set(2_000_000);
  assert.match(refusal(() => auth.authenticate(`Bearer ${key}`)), /expired/);
});

test('missing, malformed and unknown keys are refused every time, remembered or not', () => {
  const s = store();
  const auth = new KeyAuthenticator(s.lookup, manualClock(0), { ttlMs: 60_000, max: 100 });
  const unknown = mintApiKey('standard');
  for (let round = 0; round < 2; round++) {
    assert.match(refusal(() => auth.authenticate('')), /Missing/);
    assert.match(refusal(() => auth.authenticate('Basic abc')), /Malformed/);
    assert.match(refusal(() => auth.authenticate('Bearer gw-short')), /Malformed/);
    assert.match(refusal(() => auth.authenticate(`Bearer ${unknown}`)), /Unknown/);
  }
  // Case and surrounding space of the scheme and key are accepted as before.
  s.byHash.set(hashApiKey(unknown), record('k2'));
  auth.invalidate('k2');
  assert.is(authed(new KeyAuthenticator(s.lookup, manualClock(0), { ttlMs: 60_000, max: 100 }).authenticate(`bEaReR ${unknown}  `)).id, 'k2');
});

test('more distinct headers than the cache holds still authenticate correctly', () => {
  const s = store();
  const auth = new KeyAuthenticator(s.lookup, manualClock(0), { ttlMs: 60_000, max: 8 });
  const keys = Array.from({ length: 50 }, (_, i) => {
    const k = mintApiKey('standard');
    s.byHash.set(hashApiKey(k), record(`k${i}`));
    return k;
  });
  for (let pass = 0; pass < 3; pass++) {
    keys.forEach((k, i) => assert.is(authed(auth.authenticate(`Bearer ${k}`)).id, `k${i}`));
  }
});

test('a cached record is read again from the store once its TTL has passed, and at once after invalidate', () => {
  const s = store();
  const auth = new KeyAuthenticator(s.lookup, manualClock(0), { ttlMs: 2, max: 100 });
  const key = mintApiKey('standard');
  s.byHash.set(hashApiKey(key), record('k1'));
  auth.authenticate(`Bearer ${key}`);
  auth.authenticate(`Bearer ${key}`);
  assert.is(s.lookups, 1);
  // The TTL runs on the monotonic clock, not the injected one: wait for it to pass.
  const until = performance.now() + 3;
  while (performance.now() < until);
  s.byHash.set(hashApiKey(key), record('k1', { revokedAt: 1 }));
  assert.match(refusal(() => auth.authenticate(`Bearer ${key}`)), /revoked/);
  assert.is(s.lookups, 2);
  s.byHash.set(hashApiKey(key), record('k1'));
  auth.invalidate('k1');
  assert.is(authed(auth.authenticate(`Bearer ${key}`)).id, 'k1');
  assert.is(s.lookups, 3);
});

test('a record the bounded cache drops is read again for every header that named it', () => {
  const s = store();
  const auth = new KeyAuthenticator(s.lookup, manualClock(0), { ttlMs: 60_000, max: 2 });
  const keys = ['a', 'b', 'c'].map((id) => {
    const k = mintApiKey('standard');
    s.byHash.set(hashApiKey(k), record(id));
    return k;
  });
  for (const k of keys) auth.authenticate(`Bearer ${k}`);
  assert.is(s.lookups, 3);
  // 'a' was dropped to make room for 'c': revoking it is seen without an invalidate.
  s.byHash.set(hashApiKey(keys[0]), record('a', { revokedAt: 1 }));
  assert.match(refusal(() => auth.authenticate(`Bearer ${keys[0]}`)), /revoked/);
  assert.is(s.lookups, 4);
});

test('a remote store: one read per key however many requests wait for it, then served from the cache', async () => {
  const clock = manualClock(1_000_000);
  const key = mintApiKey('standard');
  let reads = 0;
  let answer: (r: KeyRecord | undefined) => void = () => {};
  const auth = new KeyAuthenticator(() => {
    reads++;
    return new Promise<KeyRecord | undefined>((resolve) => { answer = resolve; });
  }, clock, { ttlMs: 60_000, max: 100 });
  const waiting = [1, 2, 3].map(() => auth.authenticate(`Bearer ${key}`));
  assert.ok(waiting.every((w) => w instanceof Promise));
  answer(record('k1'));
  assert.equal((await Promise.all(waiting)).map((k) => k.id), ['k1', 'k1', 'k1']);
  assert.is(reads, 1);
  assert.is(authed(auth.authenticate(`Bearer ${key}`)).id, 'k1');
});

test('a remote store that does not answer: a key read within the grace period is served, any other is 503, never 401', async () => {
  const clock = manualClock(1_000_000);
  const known = mintApiKey('standard');
  const other = mintApiKey('standard');
  let down = false;
  const errorsSeen: unknown[] = [];
  const auth = new KeyAuthenticator(async (h) => {
    if (down) throw new Error('connection refused');
    return h === hashApiKey(known) ? record('k1') : undefined;
  }, clock, { ttlMs: 1, max: 100, graceMs: 60_000, onStoreError: (e) => errorsSeen.push(e) });
  assert.is((await auth.authenticate(`Bearer ${known}`)).id, 'k1');
  await new Promise((r) => setTimeout(r, 5));
  down = true;
  assert.is((await auth.authenticate(`Bearer ${known}`)).id, 'k1', 'served as last read');
  const refused = await Promise.resolve(auth.authenticate(`Bearer ${other}`)).then(() => null, (e: GatewayError) => e);
  assert.equal([refused?.status, refused?.code], [503, 'unavailable']);
  assert.ok(errorsSeen.length >= 2);
});

test('past the grace period a known key is refused 503 while the store stays away', async () => {
  const clock = manualClock(1_000_000);
  const known = mintApiKey('standard');
  let down = false;
  const auth = new KeyAuthenticator(async () => {
    if (down) throw new Error('timeout');
    return record('k1');
  }, clock, { ttlMs: 1, max: 100, graceMs: 10 });
  assert.is((await auth.authenticate(`Bearer ${known}`)).id, 'k1');
  down = true;
  await new Promise((r) => setTimeout(r, 30));
  const refused = await Promise.resolve(auth.authenticate(`Bearer ${known}`)).then(() => null, (e: GatewayError) => e);
  assert.is(refused?.status, 503);
});

test.run();
