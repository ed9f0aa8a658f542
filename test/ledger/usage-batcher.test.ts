import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UsageRecord } from '../../src/domain/usage-record.js';
import { UsageBatcher } from '../../src/ledger/usage-batcher.js';
import { createLogger } from '../../src/lib/logger.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { insertKey } from '../../src/store/keys.js';
import { insertMoneyEvent, insertOrg } from '../../src/store/orgs.js';
import { waitFor } from '../support/wait.js';

let dir: string;
let dbPath: string;
let db: Db;
let orgId: string;
let workspaceId: string;
let keyId: string;
let logs: string[];
const batchers: UsageBatcher[] = [];
let seq = 0;

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-ledger-'));
  dbPath = join(dir, 'gw.db');
  db = openDatabase(dbPath);
  ({ orgId, workspaceId } = insertOrg(db, 'acme', { now: Date.now() }));
  insertMoneyEvent(db, orgId, 'operator_credit', 1_000_000, { now: Date.now() });
  keyId = insertKey(db, { orgId, workspaceId, name: 'k', tier: 'standard' }, Date.now()).id;
  logs = [];
});
test.after.each(async () => {
  for (const b of batchers.splice(0)) await b.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function batcher(o: { batchSize: number; flushMs: number; maxInFlight?: number }): UsageBatcher {
  const b = new UsageBatcher({
    dbPath, batchSize: o.batchSize, flushMs: o.flushMs, maxInFlight: o.maxInFlight ?? 64,
    log: createLogger('warn', (line) => logs.push(line)), deadLetterPath: join(dir, 'unwritten.jsonl'),
  });
  batchers.push(b);
  return b;
}

function usage(extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    at: Date.parse('2026-11-15T06:00:00Z'), requestId: `req-${++seq}`, orgId, workspaceId, keyId, endpoint: 'chat',
    model: 'llama-3.3-70b-instruct', provider: 'groq', route: 'groq:llama-3.3-70b-instruct', attempt: 0, status: 200,
    errorCode: null, promptTokens: 11, completionTokens: 7, units: 0, costMicros: 1_059, latencyMs: 12.5, ttfbMs: 3.25,
    streamed: false, byok: false, billable: true, usageEstimated: false, queueMs: 0, usageClamped: false,
    cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, guardrail: null, cacheHit: false, ...extra,
  };
}

const rows = () => db.prepare('SELECT COUNT(*) FROM usage').pluck().get() as number;
const balance = () => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number;
const spend = (scope: string, month: string) =>
  db.prepare('SELECT spent_micros FROM monthly_spend WHERE scope_id = ? AND ist_month = ?').pluck().get(scope, month) as number | undefined;
const dayCount = (day: string) =>
  db.prepare('SELECT requests FROM key_daily_counts WHERE key_id = ? AND ist_day = ?').pluck().get(keyId, day) as number | undefined;

test('a full batch goes to the writer at once while a partial one waits for flushMs or a drain', async () => {
  const b = batcher({ batchSize: 3, flushMs: 10_000 });
  for (let i = 0; i < 5; i++) b.record(usage());
  await waitFor(() => b.written === 3, 5_000, 'the full batch to commit');
  assert.is(rows(), 3);
  assert.is(b.pending, 2, 'the two of the partial batch are still buffered: flushMs is 10 s');
  await b.drain();
  assert.is(rows(), 5);
  assert.is(b.pending, 0);
  assert.is(b.written, 5);
});

test('a partial batch is written after flushMs without anyone asking', async () => {
  const b = batcher({ batchSize: 1_000, flushMs: 20 });
  b.record(usage());
  b.record(usage());
  // The worker commits before its reply reaches this thread, so the count follows the rows a moment later.
  await waitFor(() => rows() === 2 && b.written === 2, 5_000, 'the timer flush');
});

test('every field of a record reaches its column unchanged', async () => {
  const b = batcher({ batchSize: 10, flushMs: 5 });
  const r = usage({ endpoint: 'embeddings', streamed: true, byok: true, attempt: 2, status: 499, errorCode: 'client_aborted', ttfbMs: null, usageEstimated: true, units: 42,
    queueMs: 12.25, usageClamped: true, promptTokens: 2_000, completionTokens: 300, cachedTokens: 1_500, cacheWriteTokens: 250, reasoningTokens: 120, guardrail: 'blocked=card' });
  b.record(r);
  await b.drain();
  const row = db.prepare('SELECT * FROM usage').get() as Record<string, unknown>;
  assert.equal(row, {
    id: row.id, at: r.at, request_id: r.requestId, org_id: orgId, workspace_id: workspaceId, key_id: keyId, endpoint: 'embeddings',
    model: r.model, provider: 'groq', route: r.route, attempt: 2, status: 499, error_code: 'client_aborted', prompt_tokens: 2_000,
    completion_tokens: 300, cost_micros: 1_059, latency_ms: 12.5, ttfb_ms: null, streamed: 1, byok: 1, billable: 1, usage_estimated: 1, units: 42, queue_ms: 12.25,
    usage_clamped: 1, cached_tokens: 1_500, cache_write_tokens: 250, reasoning_tokens: 120, guardrail: 'blocked=card', cache_hit: 0,
  });
});

test('the writer debits only billable rows and keys spend and counts by the IST month and day of each row', async () => {
  const b = batcher({ batchSize: 100, flushMs: 5 });
  const lastNov = Date.parse('2026-11-30T18:29:59.999Z'); // 23:59:59.999 IST, 30 Nov
  const firstDec = Date.parse('2026-11-30T18:30:00.000Z'); // 00:00 IST, 1 Dec
  b.record(usage({ at: lastNov, costMicros: 1_000 }));
  // A request that failed over: the failed attempt is kept, costs nothing and is not counted twice for the day.
  b.record(usage({ at: firstDec, requestId: 'fo', attempt: 0, status: 500, errorCode: 'upstream_error', costMicros: 0, billable: false }));
  b.record(usage({ at: firstDec + 5, requestId: 'fo', attempt: 1, costMicros: 2_000 }));
  b.record(usage({ at: firstDec + 9, costMicros: 30 }));
  await b.drain();
  assert.is(rows(), 4);
  assert.is(balance(), 1_000_000 - 3_030);
  assert.is(spend(keyId, '2026-11'), 1_000);
  assert.is(spend(keyId, '2026-12'), 2_030);
  assert.is(spend(workspaceId, '2026-11'), 1_000);
  assert.is(spend(workspaceId, '2026-12'), 2_030);
  assert.is(dayCount('2026-11-30'), 1);
  assert.is(dayCount('2026-12-01'), 2, 'two requests on 1 Dec IST: the failover counts once');
  assert.is(db.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').pluck().get(keyId), firstDec + 9);
  const sums = db.prepare(`SELECT (SELECT SUM(amount_micros) FROM money_events WHERE org_id = ?) -
    (SELECT SUM(cost_micros) FROM usage WHERE org_id = ?)`).pluck().get(orgId, orgId);
  assert.is(sums, balance(), 'the cached balance equals credits minus usage');
});

test('saturated holds while maxInFlight batches are uncommitted and clears when they commit', async () => {
  const b = batcher({ batchSize: 1, flushMs: 5, maxInFlight: 2 });
  assert.is(b.saturated, false);
  b.record(usage());
  assert.is(b.saturated, false, 'one batch in flight of two allowed');
  b.record(usage());
  assert.is(b.saturated, true);
  assert.is(b.pending, 2);
  await b.drain();
  assert.is(b.saturated, false);
  assert.is(rows(), 2);
});

test('drain also commits records added while a batch is being written, without waiting for flushMs', async () => {
  const b = batcher({ batchSize: 2, flushMs: 10_000 });
  b.record(usage());
  b.record(usage()); // a batch goes to the writer
  const started = Date.now();
  const drained = b.drain();
  b.record(usage()); // buffered while the first batch is in flight
  await drained;
  assert.is(rows(), 3);
  // Regression: the late record used to sit out the 10 s flush timer, holding up a graceful stop.
  assert.ok(Date.now() - started < 5_000, `drained in ${Date.now() - started} ms`);
});

test('close writes what is buffered before stopping the writer', async () => {
  const b = batcher({ batchSize: 1_000, flushMs: 10_000 });
  for (let i = 0; i < 7; i++) b.record(usage());
  await b.close();
  assert.is(rows(), 7);
});

test('a batch the writer keeps refusing goes to the dead-letter file rather than being dropped', async () => {
  const b = batcher({ batchSize: 2, flushMs: 10_000 });
  b.record(usage({ requestId: 'good-1' }));
  b.record(usage({ requestId: 'good-2' }));
  await waitFor(() => b.written === 2, 5_000, 'the good batch');
  // A NULL model breaks the NOT NULL constraint on every attempt; its batch-mate rolls back with it.
  b.record(usage({ requestId: 'poison', model: null as unknown as string }));
  b.record(usage({ requestId: 'innocent' }));
  await b.drain();
  assert.is(rows(), 2, 'the failed transaction left nothing half-written');
  assert.is(balance(), 1_000_000 - 2 * 1_059);
  const file = join(dir, 'unwritten.jsonl');
  assert.ok(existsSync(file));
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => l[1]), ['poison', 'innocent']);
  assert.ok(logs.some((l) => l.includes('dead-letter')), 'the operator is told');
  assert.is(b.saturated, false);
});

test.run();
