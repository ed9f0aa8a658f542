// Ledger writer throughput: records pushed through the real UsageBatcher into the
// writer and a real SQLite file, as the data plane does, then drained. Prints rows/s and the
// process RSS after the run (target: >= 50,000 rows/s batched). LEDGER_ROWS overrides 1,000,000.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageBatcher } from '../src/ledger/usage-batcher.js';
import { createLogger } from '../src/lib/logger.js';
import { openDatabase } from '../src/store/database.js';
import { insertOrg } from '../src/store/orgs.js';
import type { UsageRecord } from '../src/domain/usage-record.js';

const ROWS = Number(process.env.LEDGER_ROWS ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'gw-ledger-bench-'));
const dbPath = join(dir, 'gw.db');
const db = openDatabase(dbPath);
const { orgId, workspaceId } = insertOrg(db, 'bench', { now: Date.now() });
db.close();

const batcher = new UsageBatcher({
  dbPath, batchSize: 1_000, flushMs: 10, maxInFlight: 64, log: createLogger('warn'), deadLetterPath: join(dir, 'dead.jsonl'),
});
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const base: UsageRecord = {
  at: Date.now(), requestId: '', orgId, workspaceId, keyId: 'key_bench', endpoint: 'chat', model: 'gpt-4o-mini',
  provider: 'openai', route: 'openai:gpt-4o-mini', attempt: 0, status: 200, errorCode: null, promptTokens: 11,
  completionTokens: 7, units: 0, costMicros: 515, latencyMs: 1.2, ttfbMs: 0.9, streamed: false, byok: false, billable: true,
  usageEstimated: false, queueMs: 0, usageClamped: false,
  cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, guardrail: null, cacheHit: false,
};
// Feed in slices, yielding between them so the writer runs concurrently, and holding back while
// the batcher is saturated, as the gateway's gate does (it sheds new requests with 503 then).
let waits = 0;
for (let i = 0; i < ROWS; i += 10_000) {
  for (let j = i; j < Math.min(ROWS, i + 10_000); j++) batcher.record({ ...base, at: base.at + j, requestId: `r${j}` });
  await new Promise((r) => setImmediate(r));
  while (batcher.saturated) {
    waits++;
    await new Promise((r) => setTimeout(r, 1));
  }
}
await batcher.drain();
const seconds = (performance.now() - started) / 1000;
const rss = process.memoryUsage().rss;
await batcher.close();
const check = openDatabase(dbPath, { readonly: true });
const stored = check.prepare('SELECT COUNT(*) FROM usage').pluck().get() as number;
check.close();
rmSync(dir, { recursive: true, force: true });
console.log(`ledger: ${ROWS.toLocaleString('en')} rows in ${seconds.toFixed(2)} s = ${Math.round(ROWS / seconds).toLocaleString('en')} rows/s `
  + `(stored ${stored.toLocaleString('en')}; back-pressure waits ${waits}); RSS ${Math.round(rssBefore / 2 ** 20)} -> ${Math.round(rss / 2 ** 20)} MiB`);
if (stored !== ROWS) process.exitCode = 1;
