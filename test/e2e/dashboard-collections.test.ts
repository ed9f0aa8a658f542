// The dashboard's collections in a real browser against the real gateway: create one with a
// hostile README (sanitised, nothing runs), publish it, and from another org browse the registry,
// star, fork and import it as routing; edit it into version 2; monitor it (check now, uptime and
// p95 charts, alerts); a member sees no admin buttons; the phone layout and the dark theme.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn } from '../support/session.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, type PageProblems } from '../support/browser.js';

let gw: GatewayProcess;
let browser: Browser;
let groq: MockProvider;
let together: MockProvider;
let hook: Server;
let hookUrl: string;
/** The author's signed-in browser, kept across tests: it owns the collection. */
let author: { ctx: BrowserContext; page: Page; problems: PageProblems };
let slug = '';
/** Dialogs (alert, confirm) any page opened: the README must not open one. */
const dialogs: string[] = [];

const MODEL = 'llama-3.3-70b-instruct';
const NAME = 'Llama fast lane';
const README = [
  '# Fast lane',
  '',
  'Together first, **Groq** when it is down.',
  '',
  '- cheap',
  '- quick',
  '',
  '```',
  'curl /v1/chat/completions',
  '```',
  '',
  '<script>alert(1)</script>',
  '',
  '<img src=x onerror="window.pwned = 1; alert(2)">',
  '',
  '![tracker](https://tracker.example/pixel.png) and [x](javascript:alert(1))',
  '',
  'See the [docs](https://docs.example/fast-lane) or <a href="#" onclick="alert(3)">click</a>.',
].join('\n');

async function newCollection(page: Page) {
  await page.goto(gw.url + '/collections');
  await page.getByRole('link', { name: 'New collection' }).click();
  await page.getByRole('heading', { name: 'New collection' }).waitFor();
  await page.getByLabel('Model', { exact: true }).waitFor();
}
const expectAxeClean = async (page: Page) => {
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
};
const watchDialogs = (page: Page) => page.on('dialog', (d) => {
  dialogs.push(d.message());
  void d.dismiss();
});

test.before(async () => {
  [groq, together] = await Promise.all([startMockProvider(), startMockProvider()]);
  hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
  gw = await startGateway({
    limits: { publicRpmPerIp: 100_000 },
    orgs: { maxCollectionsPerOrg: 3 },
    monitoring: { intervalMs: 3_600_000, allowInternalWebhooks: true, minCheckIntervalMs: 0 },
    providers: { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' } },
  });
  browser = await launchBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
  await Promise.all([groq?.close(), together?.close(), new Promise((r) => hook?.close(r))]);
});

test('an owner creates a collection: refusals in words, steps reordered, a README whose scripts, handlers, images and javascript: links are stripped', async () => {
  author = await signedIn(browser, gw, 'author@collections.example');
  const { page } = author;
  watchDialogs(page);
  await skipSurvey(page);
  await page.goto(gw.url + '/collections');
  await page.getByRole('heading', { name: 'Public registry' }).waitFor();
  await page.getByText('Nobody has published a collection yet.').waitFor();
  await page.getByText('No collections yet.').waitFor();

  await newCollection(page);
  // A nameless collection is refused with the gateway's words, not a code.
  await page.getByRole('button', { name: 'Create collection' }).click();
  const alert = page.getByRole('alert');
  await alert.getByText(/The name needs a fix/).waitFor();
  assert.not.match(await alert.innerText(), /bad_name/);
  assert.is(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');

  await page.getByLabel('Name').fill(NAME);
  await page.getByLabel('Model', { exact: true }).selectOption(MODEL);
  await page.getByLabel('Step 1 provider').selectOption('groq');
  await page.getByRole('button', { name: 'Add a step' }).click();
  await page.getByLabel('Step 2 provider').selectOption('together');
  await page.getByRole('button', { name: 'Add a step' }).click();
  assert.is(await page.getByLabel('Step 3 provider').count(), 1);
  await page.getByRole('button', { name: 'Remove step 3' }).click();
  assert.is(await page.getByLabel('Step 3 provider').count(), 0);
  // Keyboard reorder: together moves up to be tried first, and focus stays with it.
  await page.getByRole('button', { name: 'Move step 2 up' }).focus();
  await page.keyboard.press('Enter');
  // The list redraws and the focus moves on the next frame: wait for both, a loaded machine is slow to paint.
  await page.waitForFunction(() => (globalThis as any).document.activeElement.getAttribute('aria-label') === 'Move step 1 down');
  assert.equal([await page.getByLabel('Step 1 provider').inputValue(), await page.getByLabel('Step 2 provider').inputValue()], ['together', 'groq']);

  await page.getByLabel('README (Markdown)').fill(README);
  await page.getByRole('button', { name: 'Preview the README' }).click();
  const preview = page.getByRole('region', { name: 'README preview' });
  await preview.getByRole('heading', { name: 'Fast lane' }).waitFor();
  assert.is(await preview.locator('script, img, [onerror], [onclick]').count(), 0);
  await page.getByRole('checkbox', { name: /^Public/ }).check();
  await expectAxeClean(page);
  await shot(page, 'dashboard-collections-new');
  await page.getByRole('button', { name: 'Create collection' }).click();

  await page.waitForURL(/\/collections\/llama-fast-lane-[0-9a-z]{6}\?created=1$/);
  slug = new URL(page.url()).pathname.split('/').pop()!;
  await page.getByRole('heading', { level: 1, name: NAME }).waitFor();
  await page.getByText('Collection created.').waitFor();
  const readme = page.getByRole('region', { name: `README of ${NAME}` });
  await readme.getByRole('heading', { name: 'Fast lane' }).waitFor();
  // The normal Markdown renders: heading, emphasis, list, code block, a safe link that opens apart.
  assert.is(await readme.locator('h3').innerText(), 'Fast lane');
  assert.is(await readme.locator('strong').innerText(), 'Groq');
  assert.equal(await readme.locator('ul li').allInnerTexts(), ['cheap', 'quick']);
  assert.match(await readme.locator('pre code').innerText(), /curl \/v1\/chat\/completions/);
  const docs = readme.getByRole('link', { name: 'docs' });
  assert.equal([await docs.getAttribute('href'), await docs.getAttribute('target'), await docs.getAttribute('rel')],
    ['https://docs.example/fast-lane', '_blank', 'noopener noreferrer nofollow']);
  // The dangerous parts are gone: no script, no image (not even fetched), no handler, no javascript: link.
  assert.is(await readme.locator('script, img, iframe, style').count(), 0);
  const attrs = await page.evaluate(`[...document.querySelectorAll('.coll-readme *')].flatMap((n) => [...n.attributes].map((a) => a.name + '=' + a.value))`) as string[];
  assert.ok(attrs.every((a) => !/^on/i.test(a) && !/javascript:/i.test(a)), attrs.join(' '));
  const tracker = readme.getByRole('link', { name: 'image: tracker' });
  assert.is(await tracker.getAttribute('href'), 'https://tracker.example/pixel.png', 'an image is a link, never loaded');
  assert.is(await readme.getByRole('link', { name: 'x', exact: true }).count(), 0, 'the javascript: link is no link');
  await readme.getByText('image: tracker and x', { exact: true }).waitFor(); // its text stays
  assert.is(await page.evaluate('window.pwned'), undefined);
  assert.equal(dialogs, []);

  const stats = await page.locator('.stats').first().innerText();
  assert.match(stats, new RegExp(`Model\\s+${MODEL}\\s+Steps\\s+2\\s+Stars\\s+0\\s+Version\\s+1`));
  await page.getByRole('table', { name: /What the steps expand to/ }).getByText('together').waitFor();
  await expectAxeClean(page);
  await shot(page, 'dashboard-collection-view');

  // It is listed as the org's own and, being public, in the registry.
  await page.goto(gw.url + '/collections');
  await page.locator('section[aria-labelledby="own-collections"]').getByRole('link', { name: NAME }).waitFor();
  await page.locator('.coll-registry').getByRole('link', { name: NAME }).waitFor();
  await page.locator('.coll-registry').getByText('Yours').waitFor();
  await expectAxeClean(page);
  await shot(page, 'dashboard-collections');
  assert.equal(author.problems.list, []);
});

test('another org finds it in the registry, stars it, forks it and imports it as routing; the org cap is refused in words', async () => {
  const fan = await signedIn(browser, gw, 'fan@other.example');
  const { page } = fan;
  watchDialogs(page);
  await skipSurvey(page);
  await page.goto(gw.url + '/collections');
  const registry = page.locator('.coll-registry');
  await registry.getByRole('link', { name: NAME }).waitFor();
  const search = page.getByRole('searchbox', { name: 'Search' });
  await search.fill('no such thing');
  await page.getByText('0 of 1 match').waitFor();
  assert.is(await registry.count(), 0);
  await search.fill('together fast');
  await registry.getByRole('link', { name: NAME }).click();

  await page.waitForURL(`${gw.url}/collections/${slug}`);
  await page.getByRole('heading', { level: 1, name: NAME }).waitFor();
  await page.getByText("Another organisation's collection").waitFor();
  await page.getByRole('region', { name: `README of ${NAME}` }).getByRole('heading', { name: 'Fast lane' }).waitFor();
  assert.equal(dialogs, []);
  // Not theirs: nothing to edit, delete or monitor.
  for (const name of ['Edit', 'Delete', 'Check now']) assert.is(await page.getByRole('button', { name, exact: true }).count(), 0, name);
  assert.is(await page.getByRole('link', { name: 'Edit' }).count(), 0);
  assert.is(await page.getByRole('heading', { name: 'Monitoring' }).count(), 0);

  const star = page.getByRole('button', { name: /Star/ });
  assert.is(await star.getAttribute('aria-pressed'), 'false');
  await star.click();
  await page.getByRole('button', { name: /Starred/ }).waitFor();
  assert.is(await page.getByRole('button', { name: /Starred/ }).getAttribute('aria-pressed'), 'true');
  assert.match(await page.locator('.stats').first().innerText(), /Stars\s+1/);
  await page.reload();
  await page.getByRole('button', { name: /Starred/ }).waitFor(); // the star is the org's, kept by the gateway

  await page.getByRole('button', { name: 'Fork' }).click();
  const forked = page.getByRole('status').filter({ hasText: 'Forked into' });
  await forked.waitFor();
  const copyHref = await forked.getByRole('link').getAttribute('href');
  assert.match(copyHref!, /^\/collections\/llama-fast-lane-[0-9a-z]{6}$/);
  assert.is.not(copyHref, `/collections/${slug}`);

  await page.getByRole('button', { name: 'Import as routing' }).click();
  const confirm = page.getByRole('dialog', { name: 'Import as routing?' });
  await confirm.getByText('a private copy is forked into').waitFor();
  await expectAxeClean(page);
  await confirm.getByRole('button', { name: 'Import' }).click();
  const imported = page.getByRole('status').filter({ hasText: 'Imported' });
  await imported.waitFor();
  const routing = await (await fan.ctx.request.get(`${gw.url}/me/routing/${MODEL}`)).json();
  assert.equal(routing.steps.map((s: { provider: string }) => s.provider), ['together', 'groq']);
  const all = await (await fan.ctx.request.get(`${gw.url}/me/routing`)).json();
  assert.ok(JSON.stringify(all).includes(MODEL), JSON.stringify(all));
  await shot(page, 'dashboard-collection-imported');
  await imported.getByRole('link', { name: 'See routing' }).click();
  await page.waitForURL(`${gw.url}/routing`);

  // The org now holds two copies (the fork and the import's); the cap of 3 refuses a fifth… after a fourth.
  await page.goto(`${gw.url}/collections/${slug}`);
  await page.getByRole('button', { name: 'Fork' }).click();
  await page.getByRole('status').filter({ hasText: 'Forked into' }).waitFor();
  await page.getByRole('button', { name: 'Fork' }).click();
  const refused = page.getByRole('alert');
  await refused.getByText(/reached its limit/).waitFor();
  assert.not.match(await refused.innerText(), /\bcap\b/);
  assert.equal(fan.problems.list, []);
  await fan.ctx.close();
});

test('the owner edits it into version 2: bad steps and a long README are refused in words, the history shows both versions', async () => {
  const { page } = author;
  await page.goto(`${gw.url}/collections/${slug}`);
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('heading', { name: 'Edit collection' }).waitFor();
  assert.is(await page.getByLabel('Name').inputValue(), NAME);
  assert.is(await page.getByLabel('Step 1 provider').inputValue(), 'together');

  // A step repeating another is refused by the gateway, in words, and the steps are marked.
  await page.getByRole('button', { name: 'Add a step' }).click();
  await page.getByLabel('Step 3 provider').selectOption('groq');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').getByText(/The routing steps need a fix/).waitFor();
  assert.is(await page.locator('fieldset.coll-steps-editor').getAttribute('aria-invalid'), 'true');
  await page.getByRole('button', { name: 'Remove step 3' }).click();

  await page.getByLabel('README (Markdown)').fill('x'.repeat(20_001));
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').getByText(/The README needs a fix/).waitFor();

  await page.getByLabel('README (Markdown)').fill('# Fast lane, now Groq first\n\nGroq answers sooner here.');
  await page.getByRole('button', { name: 'Move step 2 up' }).click();
  await expectAxeClean(page);
  await shot(page, 'dashboard-collection-edit');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved as version 2.').waitFor();
  const history = page.getByRole('table', { name: 'Versions, newest first' });
  const rows = await history.locator('tbody tr').allInnerTexts();
  assert.is(rows.length, 2, rows.join('\n'));
  assert.match(rows[0], /^2\s+current/);
  assert.match(rows[0], /groq → together/);
  assert.match(rows[1], /^1\b/);
  assert.match(rows[1], /together → groq/);
  await page.getByRole('region', { name: `README of ${NAME}` }).getByRole('heading', { name: 'Fast lane, now Groq first' }).waitFor();
  const api = await (await author.ctx.request.get(`${gw.url}/v1/collections/${slug}`)).json();
  assert.equal([api.version, api.steps.map((s: { provider: string }) => s.provider)], [2, ['groq', 'together']]);
  assert.equal(author.problems.list, []);
});

test('monitoring: turned on, checked now (fresh result shown), uptime and p95 charts over a chosen window, alerts created and deleted', async () => {
  const { page } = author;
  await page.goto(`${gw.url}/collections/${slug}`);
  const section = page.getByRole('region', { name: 'Monitoring' });
  await section.getByText('Not monitored').waitFor();
  await section.getByRole('button', { name: 'Turn monitoring on' }).click();
  await section.getByText('Monitored', { exact: true }).waitFor();
  const mine = await (await author.ctx.request.get(`${gw.url}/me/collections/${slug}`)).json();
  assert.is(mine.monitored, true);

  groq.reset();
  await section.getByRole('button', { name: 'Check now' }).click();
  const fresh = section.getByRole('status').filter({ hasText: 'Checked just now.' });
  await fresh.getByText(/2 of 2 steps answered/).waitFor();
  assert.ok(groq.requests.length >= 1, 'the check sent a canary');
  const uptime = section.getByRole('img', { name: /^Uptime per step per IST day, the last 7 days/ });
  const latency = section.getByRole('img', { name: /^p95 latency per step per IST day, the last 7 days/ });
  await uptime.waitFor();
  await latency.waitFor();
  assert.match((await uptime.getAttribute('aria-label'))!, /groq 100%, together 100%/);
  assert.is(await section.locator('canvas').count(), 2);
  const table = await section.getByRole('table', { name: /Health of each step/ }).innerText();
  assert.match(table, /groq[\s\S]*100%/);

  // A failing step shows in the fresh result and the table.
  together.enqueue({ kind: 'status', status: 500 });
  await section.getByRole('button', { name: 'Check now' }).click();
  await section.getByRole('alert').filter({ hasText: '1 of 2 steps answered' }).waitFor();
  await section.getByText(/upstream 500/).first().waitFor();
  await section.getByLabel('Window').selectOption('30');
  await section.getByRole('img', { name: /^Uptime per step per IST day, the last 30 days/ }).waitFor();
  const label = (await section.getByRole('img', { name: /^Uptime per step/ }).getAttribute('aria-label'))!;
  assert.match(label, /together \d+\.\d%/, 'below 100% after the failure');

  const alerts = page.getByRole('region', { name: 'Alerts' });
  await alerts.getByText('No alerts on this collection.').waitFor();
  // Email needs an SMTP relay this gateway lacks: refused in words.
  await alerts.getByLabel('Deliver by').selectOption('email');
  await alerts.getByLabel('Email address').fill('oncall@team.example');
  await alerts.getByRole('button', { name: 'Create alert' }).click();
  await alerts.getByRole('alert').getByText(/Email alerts are not available/).waitFor();
  await alerts.getByLabel('Deliver by').selectOption('webhook');
  await alerts.getByLabel('Fires above (%)').fill('30');
  await alerts.getByLabel('Window (minutes)').fill('60');
  await alerts.getByLabel('Webhook URL').fill(hookUrl);
  await alerts.getByRole('button', { name: 'Create alert' }).click();
  await alerts.getByText('Copy it now: you will not see it again.', { exact: false }).waitFor();
  assert.match(await alerts.locator('pre.secret').innerText(), /^whsec_/);
  const row = alerts.locator('tbody tr');
  await row.getByText('Error rate above 30.0%').waitFor();
  assert.match(await row.innerText(), new RegExp(`over 60 min[\\s\\S]*webhook[\\s\\S]*${hookUrl.replace(/[.]/g, '\\.')}`));
  await alerts.getByLabel('Metric').selectOption('latency_p95');
  await alerts.getByLabel('Fires above (ms)').fill('8000');
  await alerts.getByLabel('Webhook URL').fill(hookUrl);
  await alerts.getByRole('button', { name: 'Create alert' }).click();
  await alerts.getByText('p95 latency above 8.00 s').waitFor();
  await expectAxeClean(page);
  await shot(page, 'dashboard-collection-monitoring');

  await alerts.getByRole('button', { name: 'Delete the alert: Error rate above 30.0%' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this alert?' });
  await confirm.getByRole('button', { name: 'Delete alert' }).click();
  await alerts.getByRole('cell', { name: /^Error rate above 30\.0%/ }).waitFor({ state: 'detached' });
  const left = await (await author.ctx.request.get(`${gw.url}/me/collections/${slug}/alerts`)).json();
  assert.equal(left.data.map((a: { metric: string }) => a.metric), ['latency_p95']);
  assert.equal(author.problems.list, []);
});

test('a member sees no create, edit, delete, import, monitoring switch or alert buttons, and may star, fork and check', async () => {
  const lead = await signIn(gw, 'lead@team.example');
  const team = await (await lead.send('POST', '/me/orgs', { name: 'Collections crew' })).json() as { id: string };
  await lead.send('POST', '/me/orgs/switch', { org_id: team.id });
  const inv = await (await lead.send('POST', '/me/members', { email: 'member@team.example', role: 'member' })).json() as { id: string };
  const made = await (await lead.send('POST', '/me/collections', { name: 'Crew chain', model: MODEL, steps: [{ provider: 'groq' }] })).json() as { slug: string };
  await lead.send('POST', `/me/collections/${made.slug}/alerts`, { metric: 'error_rate', threshold: 0.5, target: { webhook: hookUrl } });

  const member = await signedIn(browser, gw, 'member@team.example');
  const { page } = member;
  await skipSurvey(page);
  const post = (path: string, data: unknown) => page.request.post(gw.url + path, { data, headers: { origin: gw.url } });
  assert.is((await post(`/me/invitations/${inv.id}/accept`, {})).status(), 200);
  assert.is((await post('/me/orgs/switch', { org_id: team.id })).status(), 200);

  await page.goto(gw.url + '/collections');
  await page.locator('section[aria-labelledby="own-collections"]').getByRole('link', { name: 'Crew chain' }).waitFor();
  assert.is(await page.getByRole('link', { name: 'New collection' }).count(), 0);
  await page.goto(gw.url + '/collections?new=1');
  await page.getByRole('heading', { name: 'Public registry' }).waitFor();
  assert.is(await page.getByRole('heading', { name: 'New collection' }).count(), 0, 'not by the address either');

  await page.locator('section[aria-labelledby="own-collections"]').getByRole('link', { name: 'Crew chain' }).click();
  await page.getByRole('heading', { level: 1, name: 'Crew chain' }).waitFor();
  const alerts = page.getByRole('region', { name: 'Alerts' });
  await alerts.getByText('Error rate above 50.0%').waitFor();
  for (const name of ['Import as routing', 'Delete', 'Turn monitoring on', 'Create alert']) {
    assert.is(await page.getByRole('button', { name, exact: true }).count(), 0, name);
  }
  assert.is(await page.getByRole('link', { name: 'Edit' }).count(), 0);
  assert.is(await alerts.getByRole('button', { name: /Delete/ }).count(), 0);
  // Checking and starring are for every member.
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.getByText(/1 of 1 step answered/).waitFor();
  await page.getByRole('button', { name: /Star/ }).click();
  await page.getByRole('button', { name: /Starred/ }).waitFor();
  await expectAxeClean(page);
  await shot(page, 'dashboard-collection-member');
  // The star toggles: a second press takes it back.
  await page.getByRole('button', { name: /Starred/ }).click();
  await page.getByRole('button', { name: 'Star', exact: true }).waitFor();
  assert.match(await page.locator('.stats').first().innerText(), /Stars\s+0/);
  await page.goto(`${gw.url}/collections/${made.slug}?edit=1`);
  await page.getByRole('heading', { name: 'Steps' }).waitFor();
  assert.is(await page.getByRole('heading', { name: 'Edit collection' }).count(), 0);

  // Another org's public collection: a member may fork it, not import it.
  await page.goto(`${gw.url}/collections/${slug}`);
  await page.getByRole('button', { name: 'Fork' }).click();
  await page.getByRole('status').filter({ hasText: 'Forked into Collections crew' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Import as routing' }).count(), 0);
  assert.equal(member.problems.list, []);
  await member.ctx.close();
});

test('the phone layout in the dark theme: the registry and a collection fit 390 px, without violations', async () => {
  const phone = await signedIn(browser, gw, 'author@collections.example', { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  const { page } = phone;
  // Nothing reaches past the screen's right edge except inside a sideways scroller (.table-wrap).
  const fits = async () => {
    const wide = await page.evaluate(`[...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > 391 && !e.closest('.table-wrap, .sr-only'))
      .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`) as string[];
    assert.equal(wide, []);
    assert.is(await page.evaluate('document.documentElement.scrollWidth'), 390);
  };
  await page.goto(gw.url + '/collections');
  await page.locator('.coll-registry').getByRole('link', { name: NAME }).waitFor();
  await expectAxeClean(page);
  await fits();
  await shot(page, 'dashboard-collections-phone-dark');
  await page.goto(`${gw.url}/collections/${slug}`);
  await page.getByRole('region', { name: 'Monitoring' }).getByRole('img', { name: /^Uptime/ }).waitFor();
  await expectAxeClean(page);
  await fits();
  await shot(page, 'dashboard-collection-phone-dark');
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Step 1 provider').waitFor();
  await fits();
  await shot(page, 'dashboard-collection-edit-phone-dark');
  assert.equal(phone.problems.list, []);
  await phone.ctx.close();
});

test('deleting asks first, then the collection is gone from the org and the registry', async () => {
  const { page } = author;
  await page.goto(`${gw.url}/collections/${slug}`);
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: `Delete “${NAME}”?` });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'hidden' });
  assert.is((await author.ctx.request.get(`${gw.url}/v1/collections/${slug}`)).status(), 200, 'cancel keeps it');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await confirm.getByRole('button', { name: 'Delete collection' }).click();
  await page.waitForURL(`${gw.url}/collections`);
  await page.getByText('No collections yet.').waitFor();
  assert.is((await author.ctx.request.get(`${gw.url}/v1/collections/${slug}`)).status(), 404);
  await page.goto(`${gw.url}/collections/${slug}`);
  await page.getByRole('alert').getByText(/That no longer exists here/).waitFor();
  assert.equal(author.problems.list, []);
  await author.ctx.close();
});

test.run();
