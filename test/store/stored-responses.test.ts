import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/database.js';
import { insertOrg } from '../../src/store/orgs.js';
import { responseStore } from '../../src/store/stored-responses.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';

const DAY = 86_400_000;

function setUp(retentionDays = 30) {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'gw-responses-')), 'gw.db'));
  let now = Date.parse('2026-11-24T10:00:00Z');
  const store = responseStore(db, retentionDays, () => now);
  const a = insertOrg(db, 'a', { now: Date.now() }).orgId;
  const b = insertOrg(db, 'b', { now: Date.now() }).orgId;
  const save = (id: string, org: string) => store.save({ id, orgId: org, createdAt: now, model: 'm', body: `{"id":"${id}"}`, items: '[]' });
  return { db, store, a, b, save, advance: (ms: number) => { now += ms; } };
}

test("a stored response is found by its own org only, and removed only by it", () => {
  const { store, a, b, save } = setUp();
  save('resp_1', a);
  assert.equal(store.find(a, 'resp_1'), { body: '{"id":"resp_1"}', items: '[]' });
  assert.is(store.find(b, 'resp_1'), null);
  assert.is(store.remove(b, 'resp_1'), false);
  assert.is(store.remove(a, 'resp_1'), true);
  assert.is(store.find(a, 'resp_1'), null);
  assert.is(store.remove(a, 'resp_1'), false);
});

test('a response past its retention reads as absent and cannot be deleted', () => {
  const { store, a, save, advance } = setUp(2);
  save('resp_old', a);
  advance(2 * DAY - 1);
  assert.ok(store.find(a, 'resp_old'), 'still kept a moment before its retention ends');
  advance(1);
  assert.is(store.find(a, 'resp_old'), null);
  assert.is(store.remove(a, 'resp_old'), false);
});

test('expired rows are swept from the table at start and on later saves', () => {
  const { db, store, a, save, advance } = setUp(1);
  save('resp_1', a);
  save('resp_2', a);
  advance(DAY + 1);
  assert.is(store.sweep(), 2, 'the sweep the gateway runs at start removes them');
  save('resp_3', a);
  advance(DAY + 1);
  save('resp_4', a); // more than an hour since the last sweep: this save sweeps resp_3
  const ids = db.prepare('SELECT id FROM stored_responses ORDER BY id').pluck().all();
  assert.equal(ids, ['resp_4']);
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
