import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UsageRecord, UsageTuple } from '../../src/domain/usage-record.js';
import { UsageBatcher } from '../../src/ledger/usage-batcher.js';
import { newId } from '../../src/lib/ids.js';
import { createLogger } from '../../src/lib/logger.js';
import { openPostgres, type Pg } from '../../src/store/postgres/pg-database.js';
import { postgresUsageBatchWriter } from '../../src/store/postgres/pg-usage.js';
import { startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { startTcpForwarder, type TcpForwarder } from '../support/tcp-forwarder.js';
import { waitFor } from '../support/wait.js';

// The ledger batcher writing to a real PostgreSQL, reached through a loopback forwarder the test
// cuts to make the server unreachable: batches are spooled, replayed when it answers, never lost
// and never written twice.

let server: PostgresServer;
let databases = 0;
let pg: Pg;
let url: string;
let dir: string;
let orgId: string;
let workspaceId: string;
let keyId: string;
let logs: string[];
let seq = 0;
const batchers: UsageBatcher[] = [];
const forwarders: TcpForwarder[] = [];

test.before(async () => {
  server = await startPostgres();
});
test.after(() => {
  server.stop();
});
test.before.each(async () => {
  url = server.createDatabase(`b${++databases}`);
  pg = await openPostgres(url, { max: 2 });
  dir = mkdtempSync(join(tmpdir(), 'gw-ledger-pg-'));
  orgId = newId('org');
  workspaceId = newId('ws');
  keyId = newId('key');
  const now = Date.now();
  await pg`INSERT INTO orgs (id, name, personal, created_at, balance_micros) VALUES (${orgId}, 'acme', 0, ${now}, 1000000)`;
  await pg`INSERT INTO workspaces (id, org_id, name, is_default, created_at) VALUES (${workspaceId}, ${orgId}, 'default', 1, ${now})`;
  await pg`INSERT INTO api_keys (id, org_id, workspace_id, name, hash, prefix, tier, created_at)
    VALUES (${keyId}, ${orgId}, ${workspaceId}, 'k', ${newId('h')}, 'gw-x', 'standard', ${now})`;
  logs = [];
});
test.after.each(async () => {
  for (const b of batchers.splice(0)) await b.close();
  for (const f of forwarders.splice(0)) await f.close();
  await pg.end({ timeout: 1 });
  rmSync(dir, { recursive: true, force: true });
});

function batcher(o: { batchSize: number; flushMs: number; maxInFlight?: number; via?: TcpForwarder; maxSpoolBytes?: number }): UsageBatcher {
  const target = o.via ? url.replace(`:${server.port}/`, `:${o.via.port}/`) : url;
  const b = new UsageBatcher({
    store: { kind: 'postgres', url: target, spoolPath: join(dir, 'ledger.spool.jsonl'), replayMs: 50, writeTimeoutMs: 1_000, maxSpoolBytes: o.maxSpoolBytes },
    batchSize: o.batchSize, flushMs: o.flushMs, maxInFlight: o.maxInFlight ?? 64,
    log: createLogger('info', (line) => logs.push(line)), deadLetterPath: join(dir, 'unwritten.jsonl'),
  });
  batchers.push(b);
  return b;
}

async function forwarder(): Promise<TcpForwarder> {
  const f = await startTcpForwarder(server.port);
  forwarders.push(f);
  return f;
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

const count = async () => (await pg`SELECT COUNT(*) AS n, COUNT(DISTINCT request_id) AS d FROM usage`)[0] as { n: number; d: number };
const balance = async () => (await pg`SELECT balance_micros AS b FROM orgs WHERE id = ${orgId}`)[0].b as number;

test('batches commit to PostgreSQL: every field in its column, the balance and the rollup moved with them', async () => {
  const b = batcher({ batchSize: 3, flushMs: 10_000 });
  const r = usage({ endpoint: 'embeddings', streamed: true, attempt: 2, status: 499, errorCode: 'client_aborted', ttfbMs: null, units: 42,
    queueMs: 12.25, usageClamped: true, cachedTokens: 5, reasoningTokens: 3, guardrail: 'redacted=upi' });
  b.record(r);
  for (let i = 0; i < 4; i++) b.record(usage());
  await waitFor(() => b.written === 3, 5_000, 'the full batch');
  await b.drain();
  assert.is(b.written, 5);
  assert.equal(await count(), { n: 5, d: 5 });
  assert.is(await balance(), 1_000_000 - 5 * 1_059);
  const [row] = await pg`SELECT * FROM usage WHERE request_id = ${r.requestId}`;
  assert.equal({ ...row }, {
    id: row.id, at: r.at, request_id: r.requestId, org_id: orgId, workspace_id: workspaceId, key_id: keyId, endpoint: 'embeddings',
    model: r.model, provider: 'groq', route: r.route, attempt: 2, status: 499, error_code: 'client_aborted', prompt_tokens: 11,
    completion_tokens: 7, cost_micros: 1_059, latency_ms: 12.5, ttfb_ms: null, streamed: 1, byok: 0, billable: 1, usage_estimated: 0, units: 42,
    queue_ms: 12.25, usage_clamped: 1, cached_tokens: 5, cache_write_tokens: 0, reasoning_tokens: 3, guardrail: 'redacted=upi', cache_hit: 0,
  });
  assert.is((await pg`SELECT SUM(attempts) AS n FROM usage_rollup`)[0].n, 5, 'folded in the batches\' commits');
  assert.is((await pg`SELECT COUNT(*) AS n FROM ledger_batches`)[0].n, 2);
});

test('batch ids older than a week are pruned as batches commit; younger ones are kept to recognise a replay', async () => {
  const at = usage().at;
  const day = 86_400_000;
  await pg`INSERT INTO ledger_batches (id, at, rows) VALUES ('old-1', ${at - 8 * day}, 1), ('old-2', ${at - 7 * day - 1}, 1), ('young', ${at - 6 * day}, 1)`;
  const b = batcher({ batchSize: 1, flushMs: 10_000 });
  b.record(usage());
  await waitFor(() => b.written === 1, 5_000, 'the batch');
  const ids = (await pg`SELECT id FROM ledger_batches ORDER BY at`).map((r) => r.id as string);
  assert.is(ids.length, 2);
  assert.is(ids[0], 'young');
});

test('PostgreSQL unreachable: batches are spooled at once, the gate stays open, and the spool is replayed once it answers, every row once', async () => {
  const via = await forwarder();
  const b = batcher({ batchSize: 10, flushMs: 5, maxInFlight: 4, via });
  for (let i = 0; i < 25; i++) b.record(usage());
  await b.drain();
  assert.equal(await count(), { n: 25, d: 25 });

  await via.cut();
  for (let i = 0; i < 200; i++) b.record(usage());
  await b.drain();
  assert.ok(b.spooled >= 20, `spooled ${b.spooled}`);
  assert.is(b.saturated, false, 'an outage does not shed requests: batches wait on disk');
  assert.ok(existsSync(join(dir, 'ledger.spool.jsonl')));
  assert.is((await count()).n, 25, 'nothing reached the server meanwhile');
  assert.ok(logs.some((l) => l.includes('spooled until it answers')), 'the operator is told');

  // More arrive while the server is away, then it comes back on the same address.
  for (let i = 0; i < 30; i++) b.record(usage());
  await b.drain();
  await via.restore();
  await waitFor(async () => b.spooled === 0 && (await count()).n === 255, 10_000, 'the spool replayed');
  assert.equal(await count(), { n: 255, d: 255 });
  assert.is(await balance(), 1_000_000 - 255 * 1_059);
  assert.ok(!existsSync(join(dir, 'ledger.spool.jsonl')) && !existsSync(join(dir, 'ledger.spool.jsonl.replaying')), 'the spool is gone');
  // Back to writing directly.
  b.record(usage());
  await b.drain();
  assert.equal(await count(), { n: 256, d: 256 });
  assert.is(b.spooled, 0);
});

test('a spool at its bound saturates the batcher (requests are shed, no row dropped) until a replay makes room', async () => {
  const via = await forwarder();
  const b = batcher({ batchSize: 10, flushMs: 5, maxInFlight: 4, via, maxSpoolBytes: 20_000 });
  await via.cut();
  for (let i = 0; i < 30; i++) b.record(usage());
  await b.drain();
  assert.is(b.saturated, false, 'three batches are under the bound');
  for (let i = 0; i < 300; i++) b.record(usage());
  await b.drain();
  assert.is(b.saturated, true, 'the spool reached 20 kB');
  assert.ok(statSync(join(dir, 'ledger.spool.jsonl')).size >= 20_000);
  await via.restore();
  await waitFor(async () => !b.saturated && b.spooled === 0, 10_000, 'the spool replayed');
  assert.equal(await count(), { n: 330, d: 330 });
});

test('the server killed (pg_ctl stop -m immediate): rows are spooled, and a new start against a fresh server writes each once', async () => {
  const doomed = await startPostgres();
  const doomedUrl = doomed.createDatabase('doomed');
  const seedDoomed = await openPostgres(doomedUrl, { max: 1 });
  await seedDoomed.end();
  const spoolPath = join(dir, 'ledger.spool.jsonl');
  const make = (target: string) => {
    const b = new UsageBatcher({
      store: { kind: 'postgres', url: target, spoolPath, replayMs: 50, writeTimeoutMs: 1_000 },
      batchSize: 10, flushMs: 5, maxInFlight: 4, log: createLogger('info', (line) => logs.push(line)), deadLetterPath: join(dir, 'unwritten.jsonl'),
    });
    batchers.push(b);
    return b;
  };
  const b = make(doomedUrl);
  doomed.stop('immediate');
  const sent: string[] = [];
  for (let i = 0; i < 45; i++) {
    const r = usage();
    sent.push(r.requestId);
    b.record(r);
  }
  await b.close();
  assert.is(b.spooled, 5, 'five batches of ten or fewer wait on disk');
  // The next start points at another server (this test's database, with the same org and key).
  const next = make(url);
  await waitFor(async () => next.spooled === 0 && (await count()).n === 45, 10_000, 'the spool replayed into the new server');
  const stored = (await pg`SELECT request_id FROM usage ORDER BY id`).map((r) => r.request_id as string);
  assert.equal([...stored].sort(), [...sent].sort());
  assert.is(await balance(), 1_000_000 - 45 * 1_059);
});

test('a spool left by a previous run is replayed at start; a batch already committed under its id is not written twice', async () => {
  const mk = (n: number): UsageTuple[] => Array.from({ length: n }, () => {
    const r = usage();
    return [r.at, r.requestId, orgId, workspaceId, keyId, 'chat', r.model, 'groq', null, 0, 200, null, 1, 1, 100, 1, null, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, null, 0];
  });
  const committed = mk(4);
  const fresh = mk(6);
  // The first batch's commit went through before the process lost its answer and spooled it.
  await postgresUsageBatchWriter(pg)(committed, 'batch-a');
  writeFileSync(join(dir, 'ledger.spool.jsonl'), `${JSON.stringify({ id: 'batch-a', rows: committed })}\n${JSON.stringify({ id: 'batch-b', rows: fresh })}\n{"id":"torn","ro`);
  const b = batcher({ batchSize: 10, flushMs: 5 });
  assert.is(b.spooled, 3);
  await waitFor(async () => b.spooled === 0, 10_000, 'the replay at start');
  assert.equal(await count(), { n: 10, d: 10 });
  assert.is(await balance(), 1_000_000 - 1_000, 'each row debited once');
  assert.is(b.written, 6, 'the committed batch counts no rows');
  assert.ok(logs.some((l) => l.includes('torn line')));
});

test('close() flushes what is buffered; during an outage it leaves the rows in the spool, and the next start writes them', async () => {
  const b = batcher({ batchSize: 1_000, flushMs: 10_000 });
  for (let i = 0; i < 7; i++) b.record(usage());
  await b.close();
  assert.equal(await count(), { n: 7, d: 7 });

  const via = await forwarder();
  const cut = batcher({ batchSize: 1_000, flushMs: 10_000, via });
  await via.cut();
  for (let i = 0; i < 9; i++) cut.record(usage());
  await cut.close();
  assert.is((await count()).n, 7);
  // In the spool, or in the file of the replay that close() tried last.
  const spooled = ['ledger.spool.jsonl', 'ledger.spool.jsonl.replaying'].filter((f) => existsSync(join(dir, f)))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'));
  assert.is(spooled.length, 1);
  assert.is(JSON.parse(spooled[0]).rows.length, 9);

  await via.restore();
  const next = batcher({ batchSize: 1_000, flushMs: 10_000, via });
  await next.close();
  assert.equal(await count(), { n: 16, d: 16 }, 'close() replays the spool when the server answers');
});

test('a batch PostgreSQL refuses for its values goes to the dead-letter file at once, not to the spool', async () => {
  const b = batcher({ batchSize: 2, flushMs: 10_000 });
  b.record(usage({ requestId: 'poison', model: null as unknown as string }));
  b.record(usage({ requestId: 'innocent' }));
  await b.drain();
  assert.is((await count()).n, 0);
  assert.is(b.spooled, 0);
  const lines = readFileSync(join(dir, 'unwritten.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => l[1]), ['poison', 'innocent']);
  assert.ok(logs.some((l) => l.includes('dead-letter')));
  b.record(usage());
  await b.drain();
  assert.is((await count()).n, 1, 'the writer goes on');
});

test.run();
