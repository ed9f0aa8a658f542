// Stored Responses API answers over SQLite and over PostgreSQL: one org's never visible to another,
// gone after their retention, swept from the table at start and on later saves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseStore, StoredResponse } from '../../src/domain/response-store.js';
import { postgresResponseStore } from '../../src/store/postgres/pg-stored-responses.js';
import { responseStore } from '../../src/store/stored-responses.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { eachBackend } from '../support/store-backends.js';
import { exec, rows } from '../support/seed-sql.js';

const DAY = 86_400_000;

eachBackend('stored responses', (t, be) => {
  /** A store over an emptied table, on a clock the test moves, and two orgs. */
  async function setUp(retentionDays = 30) {
    await exec(be(), 'DELETE FROM stored_responses');
    let now = Date.parse('2026-11-24T10:00:00Z');
    const store: { [K in keyof ResponseStore]: (...a: Parameters<ResponseStore[K]>) => Promise<Awaited<ReturnType<ResponseStore[K]>>> } & { sweep(): Promise<number> } = be().pick((db) => {
      const s = responseStore(db, retentionDays, () => now);
      return { save: async (r: StoredResponse) => s.save(r), find: async (o: string, id: string) => s.find(o, id), remove: async (o: string, id: string) => s.remove(o, id), sweep: async () => s.sweep() };
    }, (pg) => { const s = postgresResponseStore(pg, retentionDays, () => now); return { save: async (r: StoredResponse) => s.save(r), find: async (o: string, id: string) => s.find(o, id), remove: async (o: string, id: string) => s.remove(o, id), sweep: () => s.sweep() }; });
    const a = (await be().org('a')).orgId;
    const b = (await be().org('b')).orgId;
    const save = (id: string, org: string) => store.save({ id, orgId: org, createdAt: now, model: 'm', body: `{"id":"${id}"}`, items: '[]' });
    return { store, a, b, save, advance: (ms: number) => { now += ms; } };
  }

  t("a stored response is found by its own org only, and removed only by it", async () => {
    const { store, a, b, save } = await setUp();
    await save('resp_1', a);
    assert.equal(await store.find(a, 'resp_1'), { body: '{"id":"resp_1"}', items: '[]' });
    assert.is(await store.find(b, 'resp_1'), null);
    assert.is(await store.remove(b, 'resp_1'), false);
    assert.is(await store.remove(a, 'resp_1'), true);
    assert.is(await store.find(a, 'resp_1'), null);
    assert.is(await store.remove(a, 'resp_1'), false);
  });

  t('a response past its retention reads as absent and cannot be deleted', async () => {
    const { store, a, save, advance } = await setUp(2);
    await save('resp_old', a);
    advance(2 * DAY - 1);
    assert.ok(await store.find(a, 'resp_old'), 'still kept a moment before its retention ends');
    advance(1);
    assert.is(await store.find(a, 'resp_old'), null);
    assert.is(await store.remove(a, 'resp_old'), false);
  });

  t('expired rows are swept from the table at start and on later saves', async () => {
    const { store, a, save, advance } = await setUp(1);
    await save('resp_1', a);
    await save('resp_2', a);
    advance(DAY + 1);
    assert.is(await store.sweep(), 2, 'the sweep the gateway runs at start removes them');
    await save('resp_3', a);
    advance(DAY + 1);
    await save('resp_4', a); // more than an hour since the last sweep: this save sweeps resp_3
    const ids = (await rows<{ id: string }>(be(), 'SELECT id FROM stored_responses ORDER BY id')).map((r) => r.id);
    assert.equal(ids, ['resp_4']);
  });
});

test('responses.retentionDays defaults to 30 and is checked at start', () => {
  assert.is(loadConfig({ env: {} }).responses.retentionDays, 30);
  const dir = mkdtempSync(join(tmpdir(), 'gw-responses-config-'));
  const path = join(dir, 'c.json');
  for (const bad of [0, 1.5, 'thirty']) {
    writeFileSync(path, JSON.stringify({ responses: { retentionDays: bad } }));
    try {
      loadConfig({ env: {}, file: path });
      assert.unreachable(`accepted ${bad}`);
    } catch (e) {
      assert.instance(e, ConfigError);
      assert.match((e as Error).message, /\/responses\/retentionDays/);
    }
  }
});

test.run();
