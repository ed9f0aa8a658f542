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

/**
 * The best of up to three tries of a timed step, each from the same starting point, all logged:
 * the machine the tests run on is shared, and another tenant's burst is not the page's time.
 */
async function measured(what: string, run: () => Promise<number>): Promise<number> {
  const seen: number[] = [];
  for (let i = 0; i < 3; i++) {
    seen.push(await run());
    if (seen[i] < BUDGET_MS) break;
  }
  const best = Math.min(...seen);
  log(`${what}${seen.length > 1 ? ` (tries: ${seen.map((v) => v.toFixed(0)).join(', ')} ms)` : ''}`, best);
  return best;
}

/** Opens /usage (or a query of it) and waits for the page to be ready; returns the page's own ms since navigation. */
async function openUsage(q = ''): Promise<number> {
  await page.goto(`${gw.url}/usage${q}`);
  await page.waitForFunction(() => (globalThis as any).usageReadyAt !== undefined, undefined, { timeout: 20_000 });
  return page.evaluate('window.usageReadyAt') as Promise<number>;
}

test('after a restart the usage page of the 30-day default, its charts, tables and first events page, is ready in under a second', async () => {
  // Marks, in the page, the first frame with the charts, the tables and 50 events on screen
  // (playwright's waits poll over the debugging protocol and would add their own delay).
  await page.addInitScript(`(() => {
    const ready = () => document.querySelectorAll('figure.chart canvas').length >= 2
      && document.querySelector('section[aria-labelledby="sec-by-model"] table.usage-table tbody tr')
      && document.querySelector('section[aria-labelledby="sec-cost-by-provider"] table.usage-table tbody tr')
      && document.querySelectorAll('.usage-events tbody tr').length >= 50
      && !document.querySelector('.usage-stats[aria-busy="true"]')
      && /\\d/.test(document.querySelector('.usage-stats .stat-value')?.textContent ?? '');
    const poll = () => (ready() ? (window.usageReadyAt = performance.now()) : requestAnimationFrame(poll));
    requestAnimationFrame(poll);
  })()`);
  let calls: [string, number][] = [];
  const best = await measured('after a restart: navigation to charts, tables and 50 events', async () => {
    // A restart each time: the rollup is in the database, so nothing is folded again, and no
    // report has been read yet.
    await gw.stop();
    await gw.restart();
    const ready = await openUsage();
    const t = await timings(page);
    calls = t.calls;
    for (const [path, ms] of t.calls) log(`  ${path.slice(0, 58)}`, ms);
    return Math.max(ready, ...t.calls.map(([, ms]) => ms));
  });
  assert.ok(best < BUDGET_MS, `the page took ${best.toFixed(0)} ms`);
  assert.ok(calls.length >= 3);
  // What the page shows is what the API says (read after the page, so as not to warm anything for it).
  const expected = await (await ctx.request.get(`${gw.url}/me/activity?from=${addDays(istToday(), -29)}&to=${istToday()}`)).json();
  assert.ok(expected.totals.requests > ROWS / 4, JSON.stringify(expected.totals));
  await stat(page, 'Requests').getByText(expected.totals.requests.toLocaleString('en-IN'), { exact: true }).waitFor();
  await page.getByRole('img', { name: /^Spend and requests per day/ }).locator('canvas').waitFor();
  await page.getByRole('img', { name: /^Spend per day by model/ }).locator('canvas').waitFor();
  assert.is(await page.locator('.usage-events tbody tr').count(), 50);
});

test('"Load more", a filter change and a range change each answer in under a second', async () => {
  const events = page.getByRole('region', { name: 'Events', exact: true });
  const timed = async (act: () => Promise<void>) => {
    const t0 = performance.now();
    await act();
    return performance.now() - t0;
  };
  const rows = () => events.locator('tbody tr');
  let ms = await measured('Load more (50 older events)', async () => {
    await openUsage();
    return timed(async () => {
      await events.getByRole('button', { name: 'Load more' }).click();
      await events.getByText('Showing 100 events, newest first.').waitFor();
    });
  });
  assert.ok(ms < BUDGET_MS, `Load more took ${ms.toFixed(0)} ms`);

  ms = await measured('filter: failed requests only', async () => {
    await openUsage();
    return timed(async () => {
      await events.getByLabel('Status').selectOption('error');
      await waitFor(async () => (await events.locator('tbody .badge-ok').count()) === 0 && (await rows().count()) === 50, 10_000, 'the failed events');
    });
  });
  assert.ok(ms < BUDGET_MS, `the filter took ${ms.toFixed(0)} ms`);

  ms = await measured('filter: and the rarest model', async () => {
    await openUsage('?status=error');
    return timed(async () => {
      await events.getByLabel('Model').selectOption('deepseek-v3');
      await waitFor(async () => {
        const models = await events.locator('tbody tr td:nth-child(3)').allInnerTexts();
        return models.length > 0 && models.every((m) => m === 'deepseek-v3');
      }, 10_000, 'the rarest model\'s failures');
    });
  });
  assert.ok(ms < BUDGET_MS, `the filter took ${ms.toFixed(0)} ms`);

  ms = await measured('range: 90 days (every row)', async () => {
    await openUsage();
    return timed(async () => {
      await page.getByRole('button', { name: '90 days' }).click();
      await page.waitForURL(/from=/);
      await waitFor(async () => (await page.locator('.usage-stats[aria-busy="true"]').count()) === 0 && (await rows().count()) === 50, 10_000, 'the 90 days');
    });
  });
  assert.ok(ms < BUDGET_MS, `the range change took ${ms.toFixed(0)} ms`);
  const ninety = await (await ctx.request.get(`${gw.url}/me/activity?from=${addDays(istToday(), -89)}&to=${istToday()}`)).json();
  await stat(page, 'Requests').getByText(ninety.totals.requests.toLocaleString('en-IN'), { exact: true }).waitFor();
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
  // The page knows it from the range's request count, and says so instead of offering the download.
  await page.goto(`${gw.url}/usage?from=${addDays(today, -365)}&to=${today}`);
  const events = page.getByRole('region', { name: 'Events', exact: true });
  await events.getByText('10,00,003 events are too many for one export (at most 10,00,000): choose a shorter range.').waitFor();
  assert.is(await events.getByRole('link', { name: 'Download CSV' }).count(), 0);
  assert.equal(problems.list, []);
});

test.run();
