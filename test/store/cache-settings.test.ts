// Cache settings stored per key and per org, on SQLite and on PostgreSQL (docs/cache.md): the data
// plane's key lookup carries the key's own response cache mode and prompt-cache setting, else its
// org's; an org's change is a change of each of its keys on the feed, so every instance's key
// cache drops them; a change of one setting leaves the other as it was.
import * as assert from 'uvu/assert';
import { changeFeedReader } from '../../src/store/change-log.js';
import { keyByHashReader, sqliteKeyStore } from '../../src/store/keys.js';
import { sqliteOrgStore } from '../../src/store/orgs.js';
import { postgresChangeFeedReader } from '../../src/store/postgres/pg-change-feed.js';
import { postgresKeyByHash, postgresKeyStore } from '../../src/store/postgres/pg-keys.js';
import { postgresOrgStore } from '../../src/store/postgres/pg-orgs.js';
import type { KeyRecord } from '../../src/domain/key-record.js';
import { scalar, seedKey } from '../support/ledger-backends.js';
import { eachBackend } from '../support/store-backends.js';

eachBackend('cache settings', (test, be) => {
  test('a key\'s own settings win over its org\'s, a key without them is looked up with the org\'s, and null clears', async () => {
    const { orgId, workspaceId } = await be().org('Cached');
    const [k1, k2] = [await seedKey(be(), orgId, workspaceId, 'a'), await seedKey(be(), orgId, workspaceId, 'b')];
    const orgs = be().pick(sqliteOrgStore, postgresOrgStore);
    const keys = be().pick(sqliteKeyStore, postgresKeyStore);
    const byHash = be().pick((db) => { const r = keyByHashReader(db); return async (h: string) => r(h); }, postgresKeyByHash);
    const lookup = async (id: string): Promise<KeyRecord> => (await byHash(await scalar<string>(be(), 'SELECT hash FROM api_keys WHERE id = ?', id)))!;
    const settings = async (id: string) => { const k = await lookup(id); return [k.responseCache, k.promptCache]; };
    const feed = be().pick((db) => { const f = changeFeedReader(db); return { latest: async () => f.latestSeq(), since: async (s: number) => f.since(s) }; },
      (pg) => { const f = postgresChangeFeedReader(pg); return { latest: () => f.latestSeq(), since: (s: number) => f.since(s) }; });

    assert.equal(await settings(k1), [null, null], 'nothing set: the config applies');
    const before = await feed.latest();
    assert.equal((await orgs.setCacheSettings(orgId, { responseCache: 'on', promptCache: 'auto' }, Date.now())).sort(), [k1, k2].sort());
    assert.equal((await feed.since(before)).filter((c) => c.kind === 'key').map((c) => c.ref).sort(), [k1, k2].sort());
    assert.ok(await keys.updateLimits(k1, { responseCache: 'off' }, Date.now()));

    assert.equal(await settings(k1), ['off', 'auto'], 'the key\'s own mode, the org\'s markers');
    assert.equal(await settings(k2), ['on', 'auto']);
    const own = (await keys.find(k2))!;
    assert.equal([own.responseCache, own.promptCache], [null, null], 'the key store shows a key\'s own settings');
    // Keys made in the same millisecond list in id order, which is random: sorted by name here.
    const listed = (await keys.list(orgId, '2026-11')).sort((x, y) => x.name.localeCompare(y.name));
    assert.equal(listed.map((k) => [k.name, k.responseCache, k.promptCache]), [['a', 'off', null], ['b', null, null]]);
    const org = (await orgs.find(orgId))!;
    assert.equal([org.responseCache, org.promptCache], ['on', 'auto']);

    await orgs.setCacheSettings(orgId, { promptCache: null }, Date.now());
    assert.equal(await settings(k2), ['on', null], 'a member absent is left as it was');
    await orgs.setCacheSettings(orgId, { responseCache: null }, Date.now());
    assert.equal(await settings(k2), [null, null]);
    assert.ok(await keys.updateLimits(k1, { responseCache: null, promptCache: 'off' }, Date.now()));
    assert.equal(await settings(k1), [null, 'off']);
  });
});
