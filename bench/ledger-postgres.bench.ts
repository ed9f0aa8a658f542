// Ledger writer throughput on PostgreSQL (issue 19): records pushed through the real
// UsageBatcher into its PostgreSQL writer thread and a real PostgreSQL server (Debian's, started
// in a temp folder as the tests do; fsync off), in batches of 1,000, then drained. Also the same
// batches written by postgresUsageBatchWriter on the main thread, to show what the writer would
// cost the event loop there. Prints rows/s and the main thread's busy time per 1,000 rows.
// LEDGER_ROWS overrides 200,000.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { UsageBatcher } from '../src/ledger/usage-batcher.js';
import { decodeBatch, UsageBatchBuilder } from '../src/ledger/usage-batch.js';
import { createLogger } from '../src/lib/logger.js';
import { openPostgres } from '../src/store/postgres/pg-database.js';
import { postgresUsageBatchWriter } from '../src/store/postgres/pg-usage.js';
import type { UsageRecord } from '../src/domain/usage-record.js';
import { startPostgres } from '../test/support/postgres-server.js';

const ROWS = Number(process.env.LEDGER_ROWS ?? 200_000);
const server = await startPostgres();
const dir = mkdtempSync(join(tmpdir(), 'gw-ledger-pg-bench-'));

async function database(name: string) {
  const url = server.createDatabase(name);
  const sql = await openPostgres(url, { max: 2 });
  const orgId = 'org_bench';
  const workspaceId = 'ws_bench';
  await sql`INSERT INTO orgs (id, name, personal, created_at) VALUES (${orgId}, 'bench', 0, ${Date.now()})`;
  await sql`INSERT INTO workspaces (id, org_id, name, is_default, created_at) VALUES (${workspaceId}, ${orgId}, 'default', 1, ${Date.now()})`;
  await sql`INSERT INTO api_keys (id, org_id, workspace_id, name, hash, prefix, tier, created_at)
    VALUES ('key_bench', ${orgId}, ${workspaceId}, 'k', 'h', 'gw-x', 'standard', ${Date.now()})`;
  return { url, sql, orgId, workspaceId };
}

function record(orgId: string, workspaceId: string, j: number): UsageRecord {
  return {
    at: Date.now() + j, requestId: `r${j}`, orgId, workspaceId, keyId: 'key_bench', endpoint: 'chat', model: 'gpt-4o-mini',
    provider: 'openai', route: 'openai:gpt-4o-mini', attempt: 0, status: 200, errorCode: null, promptTokens: 11,
    completionTokens: 7, units: 0, costMicros: 515, latencyMs: 1.2, ttfbMs: 0.9, streamed: false, byok: false, billable: true,
    usageEstimated: false, queueMs: 0, usageClamped: false, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, guardrail: null, cacheHit: false,
  };
}

// 1. Through the batcher and its writer thread, as the gateway does.
{
  const db = await database('through_batcher');
  const batcher = new UsageBatcher({
    store: { kind: 'postgres', url: db.url, spoolPath: join(dir, 'spool.jsonl') },
    batchSize: 1_000, flushMs: 10, maxInFlight: 64, log: createLogger('warn'), deadLetterPath: join(dir, 'dead.jsonl'),
  });
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  let waits = 0;
  for (let i = 0; i < ROWS; i += 10_000) {
    for (let j = i; j < Math.min(ROWS, i + 10_000); j++) batcher.record(record(db.orgId, db.workspaceId, j));
    await new Promise((r) => setImmediate(r));
    while (batcher.saturated) {
      waits++;
      await new Promise((r) => setTimeout(r, 1));
    }
  }
  await batcher.drain();
  const seconds = (performance.now() - started) / 1000;
  const busy = performance.eventLoopUtilization(elu);
  await batcher.close();
  const [{ n }] = await db.sql`SELECT COUNT(*) AS n FROM usage`;
  console.log(`ledger on PostgreSQL, writer thread: ${ROWS.toLocaleString('en')} rows in ${seconds.toFixed(2)} s = ${Math.round(ROWS / seconds).toLocaleString('en')} rows/s `
    + `(stored ${n.toLocaleString('en')}; back-pressure waits ${waits}); main thread busy ${(busy.active / (ROWS / 1_000)).toFixed(2)} ms per 1,000 rows (recording included)`);
  if (n !== ROWS) process.exitCode = 1;
  await db.sql.end();
}

// 2. The same batches written by the writer on the main thread, one after another.
{
  const db = await database('on_main_thread');
  const write = postgresUsageBatchWriter(db.sql);
  const builder = new UsageBatchBuilder();
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let writing = 0;
  for (let i = 0; i < ROWS; i += 1_000) {
    for (let j = i; j < Math.min(ROWS, i + 1_000); j++) builder.add(record(db.orgId, db.workspaceId, j));
    const t = performance.now();
    await write(decodeBatch(builder.take()), `b${i}`);
    writing += performance.now() - t;
  }
  const seconds = (performance.now() - started) / 1000;
  const busy = performance.eventLoopUtilization(elu);
  const used = process.cpuUsage(cpu);
  const [{ n }] = await db.sql`SELECT COUNT(*) AS n FROM usage`;
  console.log(`ledger on PostgreSQL, main thread: ${ROWS.toLocaleString('en')} rows in ${seconds.toFixed(2)} s = ${Math.round(ROWS / seconds).toLocaleString('en')} rows/s `
    + `(stored ${n.toLocaleString('en')}); a batch of 1,000 commits in ${(writing / (ROWS / 1_000)).toFixed(1)} ms; main thread busy ${(busy.active / (ROWS / 1_000)).toFixed(2)} ms `
    + `and CPU ${((used.user + used.system) / 1_000 / (ROWS / 1_000)).toFixed(2)} ms per 1,000 rows (recording included)`);
  if (n !== ROWS) process.exitCode = 1;
  await db.sql.end();
}

rmSync(dir, { recursive: true, force: true });
server.stop();
