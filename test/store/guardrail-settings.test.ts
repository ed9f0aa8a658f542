// Guardrail policies stored per key and per org, on SQLite and on PostgreSQL: the data plane's
// key lookup carries the key's own policy, else its org's; an org's change is a change of each
// of its keys on the feed, so every instance's key cache drops them.
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

eachBackend('guardrail settings', (test, be) => {
  test('a key\'s own policy wins over its org\'s, and a key without one is looked up with the org\'s', async () => {
    const { orgId, workspaceId } = await be().org('Guarded');
    const [k1, k2] = [await seedKey(be(), orgId, workspaceId, 'a'), await seedKey(be(), orgId, workspaceId, 'b')];
    const orgs = be().pick(sqliteOrgStore, postgresOrgStore);
    const keys = be().pick(sqliteKeyStore, postgresKeyStore);
    const byHash = be().pick((db) => { const r = keyByHashReader(db); return async (h: string) => r(h); }, postgresKeyByHash);
    const lookup = async (id: string): Promise<KeyRecord> => (await byHash(await scalar<string>(be(), 'SELECT hash FROM api_keys WHERE id = ?', id)))!;
    const feed = be().pick((db) => { const f = changeFeedReader(db); return { latest: async () => f.latestSeq(), since: async (s: number) => f.since(s) }; },
      (pg) => { const f = postgresChangeFeedReader(pg); return { latest: () => f.latestSeq(), since: (s: number) => f.since(s) }; });
    const before = await feed.latest();

    assert.equal((await orgs.setGuardrails(orgId, 'redact=aadhaar,pan', Date.now())).sort(), [k1, k2].sort());
    assert.equal((await feed.since(before)).filter((c) => c.kind === 'key').map((c) => c.ref).sort(), [k1, k2].sort());
    assert.ok(await keys.updateLimits(k1, { guardrails: 'block=card' }, Date.now()));

    assert.is((await lookup(k1)).guardrails, 'block=card');
    assert.is((await lookup(k2)).guardrails, 'redact=aadhaar,pan');
    assert.is((await keys.find(k2))!.guardrails, null, 'the key store shows a key\'s own setting');
    // Keys made in the same millisecond list in id order, which is random: sorted by name here.
    const listed = (await keys.list(orgId, '2026-11')).sort((x, y) => x.name.localeCompare(y.name));
    assert.equal(listed.map((k) => [k.name, k.guardrails]), [['a', 'block=card'], ['b', null]]);
    assert.is((await orgs.find(orgId))!.guardrails, 'redact=aadhaar,pan');

    await orgs.setGuardrails(orgId, null, Date.now());
    assert.is((await lookup(k2)).guardrails, null);
    await keys.updateLimits(k1, { guardrails: null }, Date.now());
    assert.is((await lookup(k1)).guardrails, null);
  });
});
