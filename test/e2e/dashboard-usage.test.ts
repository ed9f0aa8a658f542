// The usage and activity page in a real browser against the real gateway: real requests through
// three mock providers and the local sandbox model (today), a month of history written into the
// ledger, then the charts, the top tables, the provider split, the range picker (presets, custom
// dates, URL, back), per-key usage, the events table (filters in the URL, "Load more"), the CSV
// download, themes and the phone layout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, type PageProblems } from '../support/browser.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { seedUsage } from '../support/usage-seed.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

let gw: GatewayProcess;
let browser: Browser;
let groq: MockProvider;
let together: MockProvider;
let openai: MockProvider;
let ctx: BrowserContext;
let page: Page;
let problems: PageProblems;
let orgId: string;
const keys: Record<string, { id: string; key: string; prefix: string }> = {};
const HISTORY_ROWS = 3_000;

const istToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' }).format(new Date());
const addDays = (d: string, n: number) => new Date(Date.parse(d + 'T00:00:00Z') + n * 86_400_000).toISOString().slice(0, 10);
const rows = () => query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) FROM usage WHERE org_id = ?').pluck().get(orgId) as number);

async function chat(key: string, body: string): Promise<number> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body });
  await r.arrayBuffer();
  return r.status;
}

/** A GET of the API with the browser's session, as the page makes it. */
async function apiGet(path: string): Promise<any> {
  const r = await ctx.request.get(gw.url + path);
  assert.is(r.status(), 200, `${path}: ${await r.text()}`);
  return r.json();
}

/** The texts of a table's body cells, row by row. */
async function tableRows(section: string): Promise<string[][]> {
  const region = page.getByRole('region', { name: section, exact: true });
  return region.locator('table.usage-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as any).innerText.trim())));
}

const inr = (v: number) => new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2, maximumFractionDigits: v > 0 && v < 0.01 ? 6 : 2 }).format(v);

test.before(async () => {
  try {
    await setUp();
  } catch (e) {
    console.error('set-up failed:', e, gw?.lines.filter((l) => !l.includes('"level":"info"')).slice(-20).join('\n'));
    throw e;
  }
});

async function setUp(): Promise<void> {
  [groq, together, openai] = await Promise.all([startMockProvider(), startMockProvider(), startMockProvider()]);
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: groq.url, apiKey: 'k1' }, together: { baseUrl: together.url, apiKey: 'k2' }, openai: { baseUrl: openai.url, apiKey: 'k3' } },
  });
  browser = await launchBrowser();
  ({ ctx, page, problems } = await signedIn(browser, gw, 'owner@usage.example'));
  await skipSurvey(page);
  orgId = (await apiGet('/me')).org.id;
  await gw.cli('org', 'credit', orgId, '500');
  for (const name of ['backend', 'batch-jobs', 'playground']) {
    const k = await gw.cli('key', 'create', '--org', orgId, '--name', name);
    keys[name] = { id: k.id, key: k.key, prefix: k.prefix };
  }
  // A month of history for the charts, as a restored ledger would hold it.
  seedUsage(gw.dbPath, {
    orgId, keyIds: [keys.backend.id, keys['batch-jobs'].id, keys.playground.id], rows: HISTORY_ROWS, days: 29, now: Date.now() - 3_600_000,
    models: ['llama-3.3-70b-instruct', 'gpt-4o-mini', 'llama-3.1-8b-instruct', 'gpt-4o', 'sarvam-m'], providers: ['groq', 'openai', 'together'],
  });
  // Today's traffic, real requests: served, streamed, failed over, failed outright.
  let sent = 0;
  for (let i = 0; i < 10; i++, sent++) await chat(keys.backend.key, chatBody());
  groq.enqueue({ kind: 'stream', chunks: 5 });
  await chat(keys.backend.key, chatBody({ stream: true }));
  groq.enqueue({ kind: 'status', status: 500 });
  await chat(keys.backend.key, chatBody()); // served by together after groq's 500
  groq.enqueue({ kind: 'status', status: 500 });
  together.enqueue({ kind: 'status', status: 503 });
  assert.is(await chat(keys.backend.key, chatBody()), 502, 'both routes failed');
  for (let i = 0; i < 8; i++) await chat(keys['batch-jobs'].key, chatBody({ model: 'gpt-4o-mini' }));
  for (let i = 0; i < 4; i++) await chat(keys['batch-jobs'].key, chatBody({ model: 'llama-3.1-8b-instruct' }));
  for (let i = 0; i < 6; i++) await chat(keys.playground.key, chatBody({ model: 'sandbox/echo', messages: [{ role: 'user', content: 'नमस्ते' }] }));
  sent += 3 + 8 + 4 + 6;
  // Two requests tried two providers: two rows each.
  await waitForValue(() => rows() === HISTORY_ROWS + sent + 2, 10_000, 'the ledger rows of today\'s requests');
}

test.after(async () => {
  await ctx?.close();
  await browser?.close();
  await gw?.cleanup();
  await Promise.all([groq?.close(), together?.close(), openai?.close()]);
});

test('the page shows the last 30 days: totals, charts by day and model, top models and keys, the provider split', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('heading', { name: 'Usage and activity', level: 1 }).waitFor();
  const a = await apiGet(`/me/activity?from=${addDays(istToday(), -29)}&to=${istToday()}`);
  assert.ok(a.totals.requests > HISTORY_ROWS * 0.8, JSON.stringify(a.totals));
  await page.locator('.stat', { hasText: 'Requests' }).getByText(a.totals.requests.toLocaleString('en-IN')).waitFor();
  await page.locator('.stat', { hasText: 'Spend' }).getByText(inr(a.totals.cost)).waitFor();
  // Two charts: per day, and one line per top model.
  await page.getByRole('img', { name: /^Spend and requests per day/ }).locator('canvas').waitFor();
  await page.getByRole('img', { name: /^Spend per day by model/ }).locator('canvas').waitFor();
  const legend = await page.locator('.u-legend').nth(1).innerText();
  for (const m of a.top_models.slice(0, 5)) assert.ok(legend.includes(m.model), `${m.model} has a line: ${legend}`);

  const models = await tableRows('By model');
  assert.equal(models.map((r) => r[0]), a.top_models.map((m: any) => m.model));
  assert.equal(models.map((r) => r[4]), a.top_models.map((m: any) => inr(m.cost)));
  const topKeys = await tableRows('Top keys');
  assert.equal(topKeys.map((r) => r[0].split('\n')[0]), a.top_keys.map((k: any) => k.name));
  const providers = await tableRows('Cost by provider');
  assert.equal(providers.map((r) => r[0]), a.providers.map((p: any) => p.provider));
  assert.ok(providers.length >= 3, 'groq, together, openai and the local sandbox');
  assert.equal(providers.map((r) => r[3]), a.providers.map((p: any) => `${(p.share * 100).toFixed(p.share === 1 ? 0 : 1)}%`));

  // The chart by model switches to requests.
  await page.getByRole('button', { name: 'Requests', exact: true }).click();
  await page.getByRole('img', { name: /^Requests per day by model/ }).locator('canvas').waitFor();
  assert.is(await page.getByRole('button', { name: 'Requests', exact: true }).getAttribute('aria-pressed'), 'true');

  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-usage');
});

test('every key, today and over 30 days, as GET /me/usage has them', async () => {
  const u = await apiGet('/me/usage');
  const table = await tableRows('Keys: today and the last 30 days');
  assert.equal(table.map((r) => r[0].split('\n')[0]), u.data.map((k: any) => k.name));
  const backend = u.data.find((k: any) => k.name === 'backend');
  const row = table.find((r) => r[0].startsWith('backend'))!;
  assert.equal(row.slice(1), ['active', String(backend.today.requests), inr(backend.today.cost), backend.last_30_days.requests.toLocaleString('en-IN'),
    (backend.last_30_days.prompt_tokens + backend.last_30_days.completion_tokens).toLocaleString('en-IN'), inr(backend.last_30_days.cost)]);
  assert.ok(backend.today.requests >= 13, 'today\'s 13 requests, and the history\'s of today');
});

test('the range: presets and custom dates live in the URL; reload and back keep them; bad ranges are explained in words', async () => {
  const today = istToday();
  await page.getByRole('button', { name: '7 days' }).click();
  await page.waitForURL(`${gw.url}/usage?from=${addDays(today, -6)}&to=${today}`);
  const week = await apiGet(`/me/activity?from=${addDays(today, -6)}&to=${today}`);
  await page.locator('.stat', { hasText: 'Requests' }).getByText(week.totals.requests.toLocaleString('en-IN'), { exact: true }).waitFor();
  assert.is(await page.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed'), 'true');
  await page.reload();
  await page.locator('.stat', { hasText: 'Requests' }).getByText(week.totals.requests.toLocaleString('en-IN'), { exact: true }).waitFor();
  assert.is(await page.getByLabel('From (IST)').inputValue(), addDays(today, -6));

  await page.getByRole('button', { name: 'This month' }).click();
  await page.waitForURL(`${gw.url}/usage?from=${today.slice(0, 8)}01&to=${today}`);
  await page.goBack();
  await page.waitForURL(`${gw.url}/usage?from=${addDays(today, -6)}&to=${today}`);
  // The URL changes on popstate before the page renders the range it names: wait for the field.
  const from = page.getByLabel('From (IST)');
  await waitFor(async () => await from.inputValue() === addDays(today, -6), 5_000, `From to read ${addDays(today, -6)} after Back`);

  // Custom dates: one day, yesterday.
  const yesterday = addDays(today, -1);
  await page.getByLabel('From (IST)').fill(yesterday);
  await page.getByLabel('To (IST)').fill(yesterday);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(`${gw.url}/usage?from=${yesterday}&to=${yesterday}`);
  const one = await apiGet(`/me/activity?from=${yesterday}&to=${yesterday}`);
  await page.locator('.stat', { hasText: 'Spend' }).getByText(inr(one.totals.cost), { exact: true }).waitFor();

  // A start after the end is refused in the page, in words, before any request.
  await page.getByLabel('From (IST)').fill(today);
  await page.getByLabel('To (IST)').fill(yesterday);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByRole('alert').getByText('The start date is after the end date.').waitFor();
  assert.is(page.url(), `${gw.url}/usage?from=${yesterday}&to=${yesterday}`);
  // A range the API refuses (typed into the URL) shows its reason in words.
  await page.goto(`${gw.url}/usage?from=2024-01-01&to=${today}`);
  await page.getByRole('alert').filter({ hasText: /at most 366 are allowed/ }).first().waitFor();
  await page.goto(`${gw.url}/usage?from=2026-02-30`);
  await page.getByRole('alert').filter({ hasText: /must be a calendar date/ }).first().waitFor();
  const alert = await page.getByRole('alert').first().innerText();
  assert.not.match(alert, /bad_request/, 'no raw code');
});

test('events: newest first, "Load more" pages on without repeats, filters live in the URL', async () => {
  const today = istToday();
  const from = addDays(today, -29);
  await page.goto(`${gw.url}/usage`);
  const events = page.getByRole('region', { name: 'Events', exact: true });
  const body = events.locator('tbody tr');
  await body.first().waitFor();
  assert.is(await body.count(), 50);
  const api1 = await apiGet(`/me/activity/events?from=${from}&to=${today}&limit=50`);
  const apiNext = await apiGet(`/me/activity/events?from=${from}&to=${today}&limit=50&cursor=${api1.next_cursor}`);
  await events.getByRole('button', { name: 'Load more' }).click();
  await events.getByText('Showing 100 events, newest first.').waitFor();
  const times = await events.locator('tbody time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
  assert.equal(times, [...api1.data, ...apiNext.data].map((e: any) => e.at));
  assert.ok(times.every((t, i) => i === 0 || t! <= times[i - 1]!), `newest first: ${times.slice(0, 60).join(' ')}`);

  // Status: failed requests only.
  await events.getByLabel('Status').selectOption('error');
  await page.waitForURL(/status=error/);
  await events.getByText(/Showing \d+ events?/).waitFor();
  const errs = await apiGet(`/me/activity/events?from=${from}&to=${today}&limit=50&status=error`);
  await waitFor(async () => (await body.count()) === Math.min(50, errs.data.length), 5_000, 'the failed events');
  const badges = await events.locator('tbody .badge-ok').count();
  assert.is(badges, 0, 'no 2xx row');
  const statuses = await events.locator('tbody .badge-danger').allInnerTexts();
  assert.equal(statuses.slice(0, 3), ['503', '500', '500'], 'today\'s failed attempts: together\'s 503 and groq\'s two 500s, newest first');
  // Model and key together, kept on reload.
  await events.getByLabel('Status').selectOption('ok');
  await events.getByLabel('Model').selectOption('gpt-4o-mini');
  await events.getByLabel('Key').selectOption(keys['batch-jobs'].id);
  await page.waitForURL(new RegExp(`model=gpt-4o-mini.*key=${keys['batch-jobs'].id}|key=${keys['batch-jobs'].id}.*model=gpt-4o-mini`));
  await page.reload();
  await events.locator('tbody tr').first().waitFor();
  assert.is(await events.getByLabel('Model').inputValue(), 'gpt-4o-mini');
  assert.is(await events.getByLabel('Status').inputValue(), 'ok');
  const shown = await events.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr.children[2] as any).innerText + '|' + (tr.children[1] as any).innerText));
  assert.ok(shown.length > 0 && shown.every((s) => s.startsWith('gpt-4o-mini|batch-jobs')), shown.slice(0, 3).join(', '));
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await events.scrollIntoViewIfNeeded();
  await shot(page, 'dashboard-usage-events-filtered');
  // Back to no filter.
  await events.getByRole('button', { name: 'Clear filters' }).click();
  await page.waitForURL(`${gw.url}/usage`);
  await waitFor(async () => (await body.count()) === 50, 5_000, 'a full first page');
});

test('the CSV download holds the filtered events of the range, from the gateway\'s export route', async () => {
  const today = istToday();
  await page.goto(`${gw.url}/usage?status=error`);
  const events = page.getByRole('region', { name: 'Events', exact: true });
  const link = events.getByRole('link', { name: 'Download CSV' });
  assert.is(await link.getAttribute('href'), `/me/activity/events.csv?from=${addDays(today, -29)}&to=${today}&status=error`);
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  assert.is(download.suggestedFilename(), `activity-${addDays(today, -29)}-to-${today}.csv`);
  const text = readFileSync((await download.path())!, 'utf8');
  const lines = text.split('\r\n').filter(Boolean);
  assert.match(lines[0], /^time_ist,at,request_id,key_id,key_prefix,key_name,endpoint,model,provider,attempt,status,error_code,/);
  let all: any[] = [];
  let cursor: string | null = null;
  do {
    const p: any = await apiGet(`/me/activity/events?from=${addDays(today, -29)}&to=${today}&status=error&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    all = all.concat(p.data);
    cursor = p.next_cursor;
  } while (cursor);
  assert.is(lines.length - 1, all.length);
  assert.ok(all.length > 50, 'more than one page of the table');
  const statuses = lines.slice(1).map((l) => l.split(',')[10]);
  assert.ok(statuses.every((st) => /^\d{3}$/.test(st) && !st.startsWith('2')), `failed requests only: ${[...new Set(statuses)].join(' ')}`);
  assert.equal(problems.list, []);
});

test('dark theme: no violations; phone width: the page fits and tables scroll inside their cards', async () => {
  await page.goto(`${gw.url}/usage`);
  await page.getByRole('button', { name: 'Use the dark theme' }).click();
  await page.getByRole('img', { name: /^Spend and requests per day/ }).locator('canvas').waitFor();
  await page.locator('.usage-events tbody tr').first().waitFor();
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-usage-dark');
  await page.getByRole('button', { name: 'Use the light theme' }).click();

  const phone = await signedIn(browser, gw, 'owner@usage.example', { viewport: { width: 390, height: 844 } });
  await phone.page.goto(`${gw.url}/usage`);
  await phone.page.locator('.usage-events tbody tr').first().waitFor();
  await phone.page.getByRole('img', { name: /^Spend and requests per day/ }).locator('canvas').waitFor();
  const widths = await phone.page.evaluate(`({ doc: document.documentElement.scrollWidth, wraps: [...document.querySelectorAll('.table-wrap')].map((w) => [w.clientWidth, w.scrollWidth]) })`) as { doc: number; wraps: number[][] };
  assert.ok(widths.doc <= 390, `the page is ${widths.doc}px wide`);
  assert.ok(widths.wraps.every(([client]) => client <= 390), JSON.stringify(widths.wraps));
  assert.ok(widths.wraps.some(([client, scroll]) => scroll > client), 'the wide events table scrolls inside its card');
  const pv = await axeSerious(phone.page);
  assert.is(pv.length, 0, describeViolations(pv));
  await shot(phone.page, 'dashboard-usage-phone');
  assert.equal(phone.problems.list, []);
  await phone.ctx.close();
  assert.equal(problems.list, []);
});

test.run();
