// The traffic reader over SQLite and over PostgreSQL: the first ledger row since a time found by
// bisection on the id, and pages of rows read forward, the same from both.
import * as assert from 'uvu/assert';
import type { TrafficRow } from '../../src/store/traffic.js';
import { trafficReader } from '../../src/store/traffic.js';
import { postgresTrafficReader } from '../../src/store/postgres/pg-traffic.js';
import { eachBackend } from '../support/store-backends.js';
import { exec } from '../support/seed-sql.js';

const T = Date.UTC(2026, 5, 1, 6);

type Reader = { firstIdSince(at: number): Promise<number>; lastId(): Promise<number>; page(afterId: number, upToId: number, limit: number): Promise<TrafficRow[]> };

eachBackend('traffic reader', (test, be) => {
  let reader: Reader;
  test.before(() => {
    reader = be().pick((db) => {
      const r = trafficReader(db);
      return { firstIdSince: async (at) => r.firstIdSince(at), lastId: async () => r.lastId(), page: async (a, u, l) => r.page(a, u, l) };
    }, postgresTrafficReader);
  });

  test('an empty ledger: the first id since any time is 1, the last 0', async () => {
    assert.is(await reader.lastId(), 0);
    assert.is(await reader.firstIdSince(T), 1);
    assert.equal(await reader.page(0, 10, 10), []);
  });

  test('the first row since a time, and pages forward up to an id', async () => {
    // 40 rows a second apart; every tenth failed.
    for (let i = 0; i < 40; i++) {
      await exec(be(), `INSERT INTO usage (at, request_id, org_id, workspace_id, key_id, endpoint, model, attempt, status, error_code,
        prompt_tokens, completion_tokens, latency_ms, ttfb_ms, billable) VALUES (?, ?, 'org_x', 'ws_x', 'key_x', 'chat', 'm', 0, ?, ?, ?, ?, ?, ?, ?)`,
        T + i * 1000, `req_${i}`, i % 10 === 9 ? 502 : 200, i % 10 === 9 ? 'upstream_error' : null, 10 + i, 20 + i, 100.5 + i, i % 2 ? null : 40.25, i % 10 === 9 ? 0 : 1);
    }
    assert.is(await reader.lastId(), 40);
    assert.is(await reader.firstIdSince(T), 1);
    assert.is(await reader.firstIdSince(T + 10_500), 12);
    assert.is(await reader.firstIdSince(T + 39_000), 40);
    assert.is(await reader.firstIdSince(T + 39_001), 41, 'past the last row: one after it');
    const page = await reader.page(8, 12, 3);
    assert.equal(page, [
      { id: 9, at: T + 8000, model: 'm', status: 200, error_code: null, prompt_tokens: 18, completion_tokens: 28, latency_ms: 108.5, ttfb_ms: 40.25, billable: 1 },
      { id: 10, at: T + 9000, model: 'm', status: 502, error_code: 'upstream_error', prompt_tokens: 19, completion_tokens: 29, latency_ms: 109.5, ttfb_ms: null, billable: 0 },
      { id: 11, at: T + 10_000, model: 'm', status: 200, error_code: null, prompt_tokens: 20, completion_tokens: 30, latency_ms: 110.5, ttfb_ms: 40.25, billable: 1 },
    ]);
    assert.equal((await reader.page(38, 39, 10)).map((r) => r.id), [39]);
  });
});
