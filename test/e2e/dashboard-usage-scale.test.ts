// The usage page with a million ledger rows for one org (90 days, written straight into the
// usage table): the gateway folds them into its rollup once, and after a restart the page, its
// API calls, "Load more", a filter change and a range change each take under a second, measured
// in a real browser. The export refuses a range over its row cap before sending anything.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, type PageProblems } from '../support/browser.js';
import { query } from '../support/ledger.js';
import { seedUsage } from '../support/usage-seed.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

const ROWS = 1_000_000;
const LIVE = 3;
const BUDGET_MS = 1_000;

let gw: GatewayProcess;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let problems: PageProblems;
let orgId: string;

const istToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' }).format(new Date());
const addDays = (d: string, n: number) => new Date(Date.parse(d + 'T00:00:00Z') + n * 86_400_000).toISOString().slice(0, 10);
const log = (what: string, ms: number) => console.log(`  ${what.padEnd(62)} ${ms.toFixed(0).padStart(6)} ms`);

test.before(async () => {
  gw = await startGateway();
  browser = await launchBrowser();
  ({ ctx, page, problems } = await signedIn(browser, gw, 'big@scale.example'));
  await skipSurvey(page);
  orgId = (await (await ctx.request.get(gw.url + '/me')).json()).org.id;
  const keyIds: string[] = [];
  let liveKey = '';
  for (let i = 0; i < 5; i++) {
    const k = await gw.cli('key', 'create', '--org', orgId, '--name', `service-${i + 1}`);
    keyIds.push(k.id);
    liveKey = k.key;
  }
  for (let i = 0; i < LIVE; i++) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(liveKey), body: chatBody({ model: 'sandbox/echo' }) });
    assert.is(r.status, 200);
    await r.arrayBuffer();
  }
  await gw.stop();
  const seeded = seedUsage(gw.dbPath, { orgId, keyIds, rows: ROWS, days: 90, now: Date.now() - 60_000 });
  log(`seeded ${seeded.rows.toLocaleString('en')} ledger rows in one transaction`, seeded.ms);
});

test.after(async () => {
  await ctx?.close();
  await browser?.close();
  await gw?.cleanup();
});

const mark = () => query(gw.dbPath, (db) => db.prepare('SELECT (SELECT last_id FROM usage_rollup_mark), (SELECT MAX(id) FROM usage)').raw().get() as [number, number]);

test('the gateway folds a million rows written behind its back into its rollup, in the background, once', async () => {
  const t0 = performance.now();
  await gw.restart();
  await waitFor(() => {
    const [folded, top] = mark();
    return folded === top;
  }, 60_000, 'the rollup to fold every row');
  log('restart, then the background fold of every row', performance.now() - t0);
  assert.is(query(gw.dbPath, (db) => db.prepare('SELECT SUM(attempts) FROM usage_rollup WHERE org_id = ?').pluck().get(orgId)), ROWS + LIVE);
});

/** The page's own timings: ms since navigation began, and each API call it made. */
async function timings(p: Page): Promise<{ now: number; calls: [string, number][] }> {
  return p.evaluate(`({ now: performance.now(), calls: performance.getEntriesByType('resource')
    .filter((e) => new URL(e.name).pathname.startsWith('/me/')).map((e) => [new URL(e.name).pathname + new URL(e.name).search, e.duration]) })`) as Promise<{ now: number; calls: [string, number][] }>;
}

const stat = (p: Page, label: string) => p.locator('.stat', { has: p.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) }).locator('.stat-value');

test('after a restart the usage page of the 30-day default, its charts, tables and first events page, is ready in under a second', async () => {
  // A restart: the rollup is in the database, so nothing is folded again.
  await gw.stop();
  await gw.restart();
  // Marks, in the page, the first frame with the charts, the tables and 50 events on screen
  // (playwright's waits below poll over the debugging protocol and would add their own delay).
  await page.addInitScript(`(() => {
    const ready = () => document.querySelectorAll('figure.chart canvas').length >= 2
      && document.querySelector('section[aria-labelledby="sec-by-model"] table.usage-table tbody tr')
      && document.querySelector('section[aria-labelledby="sec-cost-by-provider"] table.usage-table tbody tr')
      && document.querySelectorAll('.usage-events tbody tr').length >= 50
      && /\\d/.test(document.querySelector('.usage-stats .stat-value')?.textContent ?? '');
    const poll = () => (ready() ? (window.usageReadyAt = performance.now()) : requestAnimationFrame(poll));
    requestAnimationFrame(poll);
  })()`);
  await page.goto(`${gw.url}/usage`);
  await page.waitForFunction(() => (globalThis as any).usageReadyAt !== undefined, undefined, { timeout: 10_000 });
  // What the page shows is what the API says (read after the page, so as not to warm anything for it).
  const expected = await (await ctx.request.get(`${gw.url}/me/activity?from=${addDays(istToday(), -29)}&to=${istToday()}`)).json();
  assert.ok(expected.totals.requests > ROWS / 4, JSON.stringify(expected.totals));
  await stat(page, 'Requests').getByText(expected.totals.requests.toLocaleString('en-IN'), { exact: true }).waitFor();
  await page.getByRole('img', { name: /^Spend and requests per day/ }).locator('canvas').waitFor();
  await page.getByRole('img', { name: /^Spend per day by model/ }).locator('canvas').waitFor();
  await page.locator('section[aria-labelledby="sec-by-model"] table.usage-table tbody tr').first().waitFor();
  await page.locator('section[aria-labelledby="sec-cost-by-provider"] table.usage-table tbody tr').first().waitFor();
  await page.locator('.usage-events tbody tr').nth(49).waitFor();
  const t = await timings(page);
  const ready = await page.evaluate('window.usageReadyAt') as number;
  log('navigation to charts, tables and 50 events on screen', ready);
  log('  (the same, seen through the test\'s waits)', t.now);
  for (const [path, ms] of t.calls) log(`  ${path.slice(0, 58)}`, ms);
  assert.ok(ready < BUDGET_MS, `the page took ${ready.toFixed(0)} ms`);
  assert.ok(t.calls.length >= 3);
  for (const [path, ms] of t.calls) assert.ok(ms < BUDGET_MS, `${path} took ${ms.toFixed(0)} ms`);
});

test('"Load more", a filter change and a range change each answer in under a second', async () => {
  const events = page.getByRole('region', { name: 'Events', exact: true });
  let t0 = performance.now();
  await events.getByRole('button', { name: 'Load more' }).click();
  await events.getByText('Showing 100 events, newest first.').waitFor();
  let ms = performance.now() - t0;
  log('Load more (50 older events)', ms);
  assert.ok(ms < BUDGET_MS, `Load more took ${ms.toFixed(0)} ms`);

  t0 = performance.now();
  await events.getByLabel('Status').selectOption('error');
  await page.waitForURL(/status=error/);
  await waitFor(async () => (await events.locator('tbody .badge-ok').count()) === 0 && (await events.locator('tbody tr').count()) === 50, 10_000, 'the failed events');
  ms = performance.now() - t0;
  log('filter: failed requests only', ms);
  assert.ok(ms < BUDGET_MS, `the filter took ${ms.toFixed(0)} ms`);

  t0 = performance.now();
  await events.getByLabel('Model').selectOption('deepseek-v3');
  await waitFor(async () => {
    const models = await events.locator('tbody tr td:nth-child(3)').allInnerTexts();
    return models.length > 0 && models.every((m) => m === 'deepseek-v3');
  }, 10_000, 'the rarest model\'s failures');
  ms = performance.now() - t0;
  log('filter: and the rarest model', ms);
  assert.ok(ms < BUDGET_MS, `the filter took ${ms.toFixed(0)} ms`);

  const ninety = await (await ctx.request.get(`${gw.url}/me/activity?from=${addDays(istToday(), -89)}&to=${istToday()}`)).json();
  t0 = performance.now();
  await page.getByRole('button', { name: '90 days' }).click();
  await stat(page, 'Requests').getByText(ninety.totals.requests.toLocaleString('en-IN'), { exact: true }).waitFor();
  await waitFor(async () => (await events.locator('tbody tr').count()) > 0 && !(await events.getByText('Loading events…').isVisible()), 10_000, 'the events of 90 days');
  ms = performance.now() - t0;
  log('range: 90 days (every row)', ms);
  assert.ok(ms < BUDGET_MS, `the range change took ${ms.toFixed(0)} ms`);
  const t = await timings(page);
  for (const [path, d] of t.calls) assert.ok(d < BUDGET_MS, `${path} took ${d.toFixed(0)} ms`);
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-usage-million');
  assert.equal(problems.list, []);
});

test('the export streams a week of rows, and refuses a range over a million rows before sending any', async () => {
  const today = istToday();
  const from = addDays(today, -6);
  const span = query(gw.dbPath, (db) => db.prepare(`SELECT SUM(attempts) FROM usage_rollup WHERE org_id = ? AND day >= ?`).pluck()
    .get(orgId, Date.parse(from + 'T00:00:00Z') / 86_400_000)) as number;
  let t0 = performance.now();
  const week = await ctx.request.get(`${gw.url}/me/activity/events.csv?from=${from}&to=${today}`);
  const text = await week.text();
  log(`export: 7 days, ${span.toLocaleString('en')} rows, ${(text.length / 1e6).toFixed(1)} MB`, performance.now() - t0);
  assert.is(week.status(), 200);
  assert.is(text.split('\r\n').length - 2, span, 'a header, then one record per row of the week');

  t0 = performance.now();
  const all = await ctx.request.get(`${gw.url}/me/activity/events.csv?from=${addDays(today, -365)}&to=${today}`);
  const body = await all.json();
  log('export refused: 366 days', performance.now() - t0);
  assert.is(all.status(), 400);
  assert.is(body.error.code, 'bad_request');
  assert.match(body.error.message, /holds 1,000,003 events and one export takes at most 1,000,000: choose a shorter range/);
});

test.run();
