// The change feed over SQLite and over PostgreSQL: read by seq, in order; and on PostgreSQL, where
// appends from several instances run side by side, a reader polling by seq never skips an append
// that committed after a later seq did (appends commit in seq order under the feed lock).
import * as assert from 'uvu/assert';
import { changeFeedReader, recordChange, type Change, type ChangeKind } from '../../src/store/change-log.js';
import { postgresChangeFeedReader } from '../../src/store/postgres/pg-change-feed.js';
import { connectPostgres, type Pg } from '../../src/store/postgres/pg-database.js';
import { recordChangePg } from '../../src/store/postgres/pg-locks.js';
import { eachBackend, type StoreBackend } from '../support/store-backends.js';
import { rows } from '../support/seed-sql.js';
import { waitFor } from '../support/wait.js';

type Feed = { latestSeq(): Promise<number>; since(seq: number): Promise<Change[]> };

/** A second instance's pool on the same database. */
const secondPool = (pg: Pg): Pg => {
  const o = pg.options;
  return connectPostgres(`postgres://${o.user}@${o.host[0]}:${o.port[0]}/${o.database}`, { max: 2 });
};

/** One append in its own transaction; on PostgreSQL held open `holdMs` after the insert, as a slow write would be. */
async function append(be: StoreBackend, kind: ChangeKind, ref: string, holdMs = 0): Promise<void> {
  if (be.db) {
    be.db.transaction(() => recordChange(be.db!, kind, ref, Date.now()))();
    return;
  }
  await be.pg!.begin(async (tx) => {
    await recordChangePg(tx, kind, ref, Date.now());
    if (holdMs > 0) await tx`SELECT pg_sleep(${holdMs / 1000})`;
  });
}

eachBackend('change feed', (test, be) => {
  let feed: Feed;
  let pool: Pg | null = null;
  test.before(() => {
    feed = be().pick((db) => {
      const f = changeFeedReader(db);
      return { latestSeq: async () => f.latestSeq(), since: async (s: number) => f.since(s) };
    }, (pg) => postgresChangeFeedReader(pool = secondPool(pg)));
  });
  test.after(async () => {
    await (pool as Pg | null)?.end({ timeout: 1 });
  });

  test('changes are read after a seq, in seq order', async () => {
    assert.is(await feed.latestSeq(), 0);
    await append(be(), 'key', 'key_1');
    await append(be(), 'org', 'org_1');
    await append(be(), 'workspace', 'ws_1');
    const all = await feed.since(0);
    assert.equal(all.map((c) => [c.kind, c.ref]), [['key', 'key_1'], ['org', 'org_1'], ['workspace', 'ws_1']]);
    assert.ok(all[0].seq < all[1].seq && all[1].seq < all[2].seq);
    assert.is(await feed.latestSeq(), all[2].seq);
    assert.equal((await feed.since(all[0].seq)).map((c) => c.ref), ['org_1', 'ws_1']);
    assert.equal(await feed.since(all[2].seq), []);
  });

  test('a reader polling by seq while many appends commit at once sees every one, in order', async () => {
    const start = await feed.latestSeq();
    let done = false;
    const writes = Promise.all(Array.from({ length: 40 }, (_, i) => append(be(), 'key', `key_race_${i}`, (i * 7) % 20)))
      .finally(() => { done = true; });
    const got: Change[] = [];
    const poll = async () => {
      const next = await feed.since(got.length ? got[got.length - 1].seq : start);
      got.push(...next);
    };
    while (!done) await poll();
    await writes;
    await poll();
    const stored = await rows<{ seq: number }>(be(), 'SELECT seq FROM change_log WHERE seq > ? ORDER BY seq', start);
    assert.equal(got.map((c) => c.seq), stored.map((r) => r.seq));
    assert.is(got.length, 40);
  });

  test('an append waits for an open earlier one, so the reader never sees the later seq first', async () => {
    // SQLite runs one write transaction at a time (BEGIN IMMEDIATE), so a second append cannot
    // even begin while one is open; this is PostgreSQL's half of the same rule.
    if (!be().pg) return;
    const start = await feed.latestSeq();
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let inserted!: () => void;
    const firstInserted = new Promise<void>((r) => { inserted = r; });
    const first = be().pg!.begin(async (tx) => {
      await recordChangePg(tx, 'org', 'org_first', Date.now());
      inserted();
      await gate;
    });
    await firstInserted;
    const second = append(be(), 'org', 'org_second');
    await waitFor(async () => (await be().pg!`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).length > 0,
      5_000, 'the second append waiting on the feed lock');
    assert.equal(await feed.since(start), [], 'nothing is visible while the first append is open');
    release();
    await Promise.all([first, second]);
    assert.equal((await feed.since(start)).map((c) => c.ref), ['org_first', 'org_second']);
  });
});
