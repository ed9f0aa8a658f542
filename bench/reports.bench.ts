// Usage reports at a million rows: builds a temporary ledger with REPORTS_ROWS (default
// 1,000,000) usage rows over 60 days for one org, among four smaller orgs whose rows are
// interleaved in time, through the ledger's own batch writer. Then it times each /me report
// handler (the code the routes run, minus HTTP): the first read (the rollup folds the whole
// ledger into usage_rollup, once), a first read after a restart, warm reads (median of RUNS), a read after 1,000 new rows, and pages of events.
// It prints the query plans and fails if a report query scans the usage table instead of an index.
// Target: every warm read well under 100 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrafficBook } from '../src/control/traffic-book.js';
import { trafficReader } from '../src/store/traffic.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { usageRoutes } from '../src/control/usage/usage-routes.js';
import { UsageService } from '../src/control/usage/usage-service.js';
import type { Session } from '../src/domain/session.js';
import type { JsonRoute, RequestContext } from '../src/domain/route-spec.js';
import { createLogger } from '../src/lib/logger.js';
import { openDatabase } from '../src/store/database.js';
import { insertKey } from '../src/store/keys.js';
import { insertOrg } from '../src/store/orgs.js';
import { reportQueryPlans, sqliteUsageReports, UsageRollup } from '../src/store/usage-reports.js';
import { usageBatchWriter, type UsageTuple } from '../src/store/usage.js';

const ROWS = Number(process.env.REPORTS_ROWS ?? 1_000_000);
const OTHER_ROWS = Math.round(ROWS / 20);
const RUNS = 7;
const DAY = 86_400_000;
const MODELS = ['llama-3.3-70b-instruct', 'gpt-4o-mini', 'sarvam-m', 'claude-3-5-haiku', 'gemma-2-9b-it', 'mixtral-8x7b', 'qwen-2.5-72b', 'deepseek-v3'];
const PROVIDERS = ['groq', 'together', 'openai', 'anthropic', 'sarvam'];

const dir = mkdtempSync(join(tmpdir(), 'gw-reports-bench-'));
const db = openDatabase(join(dir, 'gw.db'));
const now = Date.now();
const start = now - 60 * DAY;

// ---- data -------------------------------------------------------------------------------------
const big = insertOrg(db, 'big', { now: Date.now() });
const bigKeys = Array.from({ length: 12 }, (_, i) => insertKey(db, { orgId: big.orgId, workspaceId: big.workspaceId, name: `k${i}`, tier: 'standard' }, Date.now()).id);
const others = Array.from({ length: 4 }, (_, i) => {
  const o = insertOrg(db, `other${i}`, { now: Date.now() });
  return { ...o, keyId: insertKey(db, { orgId: o.orgId, workspaceId: o.workspaceId, name: 'k', tier: 'standard' }, Date.now()).id };
});
const write = usageBatchWriter(db);

// A cheap deterministic generator: the same data on every run.
let seed = 42;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);

/** Appends one request's rows: 5 % fail over once, 2 % fail outright, the rest are served first time. */
function request(rows: UsageTuple[], at: number, n: number, orgId: string, ws: string, keyId: string): void {
  const model = MODELS[Math.floor(rand() ** 2 * MODELS.length)];
  const p0 = PROVIDERS[n % PROVIDERS.length];
  const r = rand();
  const prompt = 20 + Math.floor(rand() * 2000);
  const completion = 5 + Math.floor(rand() * 800);
  const cost = prompt * 52 + completion * 70;
  const streamed = (n % 3 === 0 ? 1 : 0) as 0 | 1;
  const id = `req_${n}`;
  if (r < 0.02) {
    rows.push([at, id, orgId, ws, keyId, 'chat', model, p0, `${p0}:x`, 0, 502, 'upstream_error', 0, 0, 0, 300, null, streamed, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, 0]);
    return;
  }
  let attempt = 0;
  if (r < 0.07) {
    rows.push([at - 200, id, orgId, ws, keyId, 'chat', model, p0, `${p0}:x`, 0, 500, 'upstream_error', 0, 0, 0, 200, 190, streamed, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, 0]);
    attempt = 1;
  }
  const p = PROVIDERS[(n + attempt) % PROVIDERS.length];
  rows.push([at, id, orgId, ws, keyId, 'chat', model, p, `${p}:x`, attempt, 200, null, prompt, completion, cost, 400 + rand() * 900, 90, streamed, 0, 1, 0, 0, 0, 0, 0, 0, 0, null, 0]);
}

const loadStarted = performance.now();
const total = ROWS + OTHER_ROWS * others.length;
let written = 0;
let bigRows = 0;
for (let n = 0; written < total;) {
  const rows: UsageTuple[] = [];
  for (; rows.length < 5_000; n++) {
    const at = start + Math.floor(((written + rows.length) / total) * 60 * DAY);
    const o = n % 21 === 20 || bigRows >= ROWS ? others[n % others.length] : null;
    if (o) request(rows, at, n, o.orgId, o.workspaceId, o.keyId);
    else {
      const before = rows.length;
      request(rows, at, n, big.orgId, big.workspaceId, bigKeys[Math.floor(rand() ** 1.5 * bigKeys.length)]);
      bigRows += rows.length - before;
    }
  }
  written += write(rows);
}
const counts = db.prepare('SELECT org_id = ? AS big, COUNT(*) AS n FROM usage GROUP BY 1 ORDER BY 1 DESC').all(big.orgId) as { n: number }[];
console.log(`ledger: ${counts[0].n.toLocaleString('en')} rows for the measured org, ${counts[1].n.toLocaleString('en')} for 4 others, `
  + `60 days, loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

// ---- the handlers -----------------------------------------------------------------------------
const rollup = new UsageRollup(db);
const routes = usageRoutes(new UsageService({ reports: sqliteUsageReports(db, rollup), clock: { now: () => now } }), createLogger('warn')) as JsonRoute[];
const session: Session = { hash: '', userId: 'usr_bench', email: 'bench@example.com', orgId: big.orgId, role: 'member', expiresAt: now + DAY };
const route = (path: string) => routes.find((r) => r.path === path)!;
async function call(path: string, query = ''): Promise<any> {
  const ctx: RequestContext = { params: {}, query, headers: {}, body: null, ip: '', session, key: null };
  return (await route(path).handle(ctx)).body;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await timed(fn));
  return samples.sort((a, b) => a - b)[RUNS >> 1];
}

const results: [string, number][] = [];
const report = (what: string, ms: number) => {
  results.push([what, ms]);
  console.log(`${what.padEnd(58)} ${ms.toFixed(1).padStart(8)} ms`);
};

// The baseline the rollup replaces: one GROUP BY over the 30-day range of usage_by_org_time.
const istDay = `(at + 19800000) / ${DAY}`;
const baseline = db.prepare(`SELECT ${istDay} AS day, model, SUM(attempt = 0), SUM(prompt_tokens * billable), SUM(completion_tokens * billable),
  SUM(cost_micros) FROM usage WHERE org_id = ? AND at >= ? GROUP BY day, model`);
report('baseline: SQL GROUP BY day, model over 30 days (median)', await median(async () => baseline.all(big.orgId, now - 30 * DAY)));

const stall = monitorEventLoopDelay({ resolution: 1 });
stall.enable();
report('first read: rollup folds the org\'s history (GET /me/usage)', await timed(() => call('/me/usage')));
stall.disable();
console.log(`  event-loop delay during that first read: p50 ${(stall.percentile(50) / 1e6).toFixed(1)} ms, `
  + `p99 ${(stall.percentile(99) / 1e6).toFixed(1)} ms, max ${(stall.max / 1e6).toFixed(1)} ms`);

const restarted = new UsageRollup(db);
const today = Math.floor((now + 19_800_000) / DAY);
report('first read after a restart: 30 days of cells from usage_rollup', await timed(async () => (await restarted.read(big.orgId)).cells(today - 29, today)));
const cells = (await rollup.read(big.orgId)).cells(-Infinity, Infinity).length;
console.log(`  rollup of the org: ${cells.toLocaleString('en')} cells (IST day × key × model × provider)`);
report('GET /me/usage (median)', await median(() => call('/me/usage')));
report('GET /me/usage/daily (median)', await median(() => call('/me/usage/daily')));
report('GET /me/activity, default 30 days (median)', await median(() => call('/me/activity')));
const from = new Date(start + 5.5 * 3_600_000).toISOString().slice(0, 10);
report('GET /me/activity, all 60 days (median)', await median(() => call('/me/activity', `from=${from}`)));

// Reads right after 1,000 new rows: the rollup folds only those.
const afterNewRows: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const rows: UsageTuple[] = [];
  for (let i = 0; i < 1_000; i++) request(rows, now - 1_000 + i, 10_000_000 + run * 1_000 + i, big.orgId, big.workspaceId, bigKeys[0]);
  write(rows);
  afterNewRows.push(await timed(() => call('/me/usage')));
}
report('GET /me/usage after 1,000 new rows (median)', afterNewRows.sort((a, b) => a - b)[RUNS >> 1]);

report('GET /me/activity/events, first page of 50 (median)', await median(() => call('/me/activity/events')));
const middle = (db.prepare('SELECT id FROM usage WHERE org_id = ? ORDER BY id LIMIT 1 OFFSET ?').pluck().get(big.orgId, Math.floor(ROWS / 2)) as number);
const cursor = Buffer.from(String(middle)).toString('base64url');
report('GET /me/activity/events, 200 rows from mid-history (median)', await median(() => call('/me/activity/events', `limit=200&cursor=${cursor}`)));
report('GET /me/activity/events?status=error (median)', await median(() => call('/me/activity/events', 'status=error')));
report(`GET /me/activity/events?key_id=<busiest key> (median)`, await median(() => call('/me/activity/events', `key_id=${bigKeys[0]}`)));
report(`GET /me/activity/events?model=<rarest model> (median)`, await median(() => call('/me/activity/events', `model=${MODELS.at(-1)}`)));
report('GET /me/activity/events?model=<absent> (median)', await median(() => call('/me/activity/events', 'model=none')));

// ---- public traffic statistics (all orgs) ---------------------------------------------------
const traffic = new TrafficBook(() => true);
const ledgerRows = trafficReader(db);
const trafficStall = monitorEventLoopDelay({ resolution: 1 });
trafficStall.enable();
report('traffic book rebuilt from the last 30 days of the ledger', await timed(() => traffic.load(ledgerRows, ledgerRows.lastId(), Date.now())));
trafficStall.disable();
console.log(`  event-loop delay during the rebuild: p50 ${(trafficStall.percentile(50) / 1e6).toFixed(1)} ms, `
  + `p99 ${(trafficStall.percentile(99) / 1e6).toFixed(1)} ms, max ${(trafficStall.max / 1e6).toFixed(1)} ms`);
report('GET /v1/models/:id/stats (median)', await median(async () => traffic.modelStats(MODELS[0], Date.now())));
report('GET /v1/rankings (median)', await median(async () => traffic.rankings(Date.now())));

// ---- plans ------------------------------------------------------------------------------------
console.log('\nquery plans:');
let bad = 0;
for (const [name, plan] of Object.entries(reportQueryPlans(db))) {
  // The rollup's queries read usage_rollup's primary key, or usage's (a range of row ids).
  const ok = /USING (COVERING )?INDEX usage_by_org_id|USING (INTEGER )?PRIMARY KEY|^SEARCH usage$/.test(plan) && !/SCAN usage\b/.test(plan);
  if (!ok) bad++;
  console.log(`  ${ok ? 'ok ' : 'BAD'} ${name}: ${plan}`);
}

db.close();
rmSync(dir, { recursive: true, force: true });
const slow = results.filter(([what, ms]) => what.includes('(median)') && !what.startsWith('baseline') && ms >= 100);
if (bad > 0 || slow.length > 0) {
  console.log(`\nFAILED: ${bad} plan(s) without the index, ${slow.length} warm read(s) at or over 100 ms`);
  process.exitCode = 1;
}
