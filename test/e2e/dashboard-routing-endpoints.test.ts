// The Custom endpoints page in a real browser: register a compliant endpoint on loopback and read
// its compliance report, call it, register a failing one and retest it, test a config without
// saving, refusals in words, remove with confirmation. Then a member of a team org: chains and
// endpoints visible, no button to change them, no Provider keys page. This gateway has saved
// provider keys turned off, which the Provider keys page says in words.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn } from '../support/session.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, type PageProblems } from '../support/browser.js';
import { bearer, chatBody } from '../support/wait.js';

const OWNER = 'owner@endpoints-ui.example';
const LAB_KEY = 'lab-secret-key-9876';
let gw: GatewayProcess;
let lab: MockProvider;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let problems: PageProblems;
let key: string;

const chat = (model: string) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model }) });
const item = (name: string) => page.locator('.endpoint-list > li').filter({ has: page.getByRole('heading', { name, exact: true }) });

test.before(async () => {
  lab = await startMockProvider();
  // The test's endpoint listens on 127.0.0.1, which the default guard refuses (see dashboard-routing-chains).
  gw = await startGateway({ customEndpoints: { allowInternalAddresses: true }, byok: { enabled: false } });
  browser = await launchBrowser();
  ({ ctx, page, problems } = await signedIn(browser, gw, OWNER));
  await skipSurvey(page);
  const me = await (await ctx.request.get(gw.url + '/me')).json();
  await gw.cli('org', 'credit', me.org.id, '100');
  key = (await (await ctx.request.post(gw.url + '/me/keys', { data: { name: 'endpoints-ui' }, headers: { origin: gw.url } })).json()).key;
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
  await lab?.close();
});
test.before.each(() => lab.reset());

test('registering a compliant endpoint shows its compliance report; the key clears and only its masked form is shown; its model then answers', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Custom endpoints' }).click();
  await page.getByRole('heading', { name: 'Custom endpoints', level: 1 }).waitFor();
  await page.getByText('No endpoints registered. Register one below.').waitFor();
  await page.getByLabel('Name').fill('mylab');
  await page.getByLabel('Base URL').fill(lab.url);
  await page.getByLabel('API key (optional)').fill(LAB_KEY);
  await page.getByRole('button', { name: 'Register and test' }).click();
  await page.getByText('Registered mylab.').waitFor();

  const report = page.getByRole('region', { name: 'Compliance report of mylab, just registered' });
  await report.getByText('Every check passed: the gateway calls this endpoint.').waitFor();
  assert.equal((await report.locator('.report-checks li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()), [
    'Pass Model list 1 model(s)', 'Pass Chat completion answer and usage', 'Pass Streaming SSE ending in [DONE]',
  ]);
  await report.getByText('custom/mylab/mock-model').waitFor();
  assert.equal([await page.getByLabel('Name').inputValue(), await page.getByLabel('Base URL').inputValue(), await page.getByLabel('API key (optional)').inputValue()],
    ['', '', ''], 'the form clears, the key with it');
  assert.equal(lab.requests.map((r) => r.headers.authorization), Array(3).fill(`Bearer ${LAB_KEY}`));

  const listed = item('mylab');
  await listed.getByText('lab…9876').waitFor();
  await listed.locator('.chain-item-head').getByText('Compliant', { exact: true }).waitFor();
  assert.not.ok((await page.content()).includes(LAB_KEY), 'the full key is nowhere in the page');
  await page.reload();
  await item('mylab').getByRole('button', { name: 'Show report of mylab' }).click();
  await page.getByRole('region', { name: 'Compliance report of mylab' }).getByText('SSE ending in [DONE]').waitFor();
  assert.not.ok((await page.content()).includes(LAB_KEY));

  lab.reset();
  const r = await chat('custom/mylab/mock-model');
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'custom:mylab');
  assert.is(lab.requests[0].headers.authorization, `Bearer ${LAB_KEY}`);
  assert.equal(problems.list, []);
});

test('a failing endpoint is saved as not compliant with the failing check named; a retest that passes turns it compliant', async () => {
  await page.goto(gw.url + '/endpoints');
  lab.enqueue({ kind: 'status', status: 500 });
  await page.getByLabel('Name').fill('flaky');
  await page.getByLabel('Base URL').fill(lab.url);
  await page.getByRole('button', { name: 'Register and test' }).click();
  const report = page.getByRole('region', { name: 'Compliance report of flaky, just registered' });
  await report.getByText(/It answers, but not as the OpenAI API does/).waitFor();
  const checks = (await report.locator('.report-checks li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  assert.equal(checks, ['Pass Model list 1 model(s)', 'Fail Chat completion chat completion answered 500 without choices[0].message', 'Pass Streaming SSE ending in [DONE]']);
  await item('flaky').locator('.chain-item-head').getByText('Not compliant', { exact: true }).waitFor();
  await item('flaky').getByText('none', { exact: true }).waitFor();
  assert.is((await chat('custom/flaky/mock-model')).status, 400, 'not called while it fails');
  await shot(page, 'dashboard-routing-endpoint-report');

  await item('flaky').getByRole('button', { name: 'Retest flaky' }).click();
  await page.getByText('Tested flaky again: every check passed.').waitFor();
  await item('flaky').locator('.chain-item-head').getByText('Compliant', { exact: true }).waitFor();
  await page.getByRole('region', { name: 'Compliance report of flaky' }).getByText('answer and usage').waitFor();
  assert.is((await chat('custom/flaky/mock-model')).status, 200);
  assert.equal(problems.list, []);
});

test('"test without saving" shows the report and writes nothing; refused configs are explained in words', async () => {
  await page.goto(gw.url + '/endpoints');
  await item('flaky').waitFor();
  await page.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await page.getByRole('button', { name: 'Test without saving' }).click();
  await page.getByRole('heading', { name: 'Test report (nothing was saved)' }).waitFor();
  const report = page.getByRole('region', { name: 'Test report' });
  await report.getByText('It did not answer: the gateway does not call it until a retest passes.').waitFor();
  assert.match(await report.locator('.report-checks li').innerText(), /^Fail\s+Model list\s+no answer: /);
  await page.getByLabel('Base URL').fill(lab.url);
  await page.getByRole('button', { name: 'Test without saving' }).click();
  await report.getByText('Every check passed: the gateway calls this endpoint.').waitFor();
  await page.reload();
  await item('flaky').waitFor();
  assert.is(await page.locator('.endpoint-list > li').count(), 2, 'a test registers nothing');

  const refusals: [string, string, string][] = [
    ['My Lab', lab.url, 'That name cannot be used: lower-case letters, digits and dashes, 1 to 32, starting with a letter or digit.'],
    ['mylab', lab.url, "An endpoint named 'mylab' already exists in this organisation."],
    ['ftp-lab', 'ftp://127.0.0.1/v1', 'That base URL cannot be used: only http and https URLs are allowed.'],
    ['cred-lab', 'http://user:secret@127.0.0.1:9/v1', 'That base URL cannot be used: credentials go in api_key, not in the URL.'],
  ];
  for (const [name, url, words] of refusals) {
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Base URL').fill(url);
    await page.getByRole('button', { name: 'Register and test' }).click();
    await page.getByRole('alert').getByText(words, { exact: true }).waitFor();
  }
  await page.getByLabel('Base URL').fill('');
  await page.getByRole('button', { name: 'Test without saving' }).click();
  await page.getByRole('alert').getByText('Enter the base URL to test.').waitFor();
  assert.is(await page.locator('.endpoint-list > li').count(), 2);
  assert.equal(problems.list, []);
});

test('an endpoint is removed only after confirmation, and requests for it stop', async () => {
  await page.goto(gw.url + '/endpoints');
  const remove = item('flaky').getByRole('button', { name: 'Remove flaky' });
  await remove.click();
  const dialog = page.getByRole('dialog', { name: 'Remove flaky?' });
  await dialog.getByText('Requests for custom/flaky/… stop at once').waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.is((await chat('custom/flaky/mock-model')).status, 200, 'cancelled: still there');
  await remove.click();
  await dialog.getByRole('button', { name: 'Remove endpoint' }).click();
  await page.getByText('Removed flaky: requests for custom/flaky/… stop at once.').waitFor();
  assert.is(await item('flaky').count(), 0);
  assert.is(await page.locator('.endpoint-list > li').count(), 1);
  const gone = await chat('custom/flaky/mock-model');
  assert.ok(gone.status === 404 || gone.status === 400, String(gone.status));
  assert.equal(problems.list, []);
});

test('the Custom endpoints page is accessible, with its report open, and fits a 390 px phone', async () => {
  await page.goto(gw.url + '/endpoints');
  await item('mylab').getByRole('button', { name: 'Show report of mylab' }).click();
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-routing-endpoints');
  const phone = await signedIn(browser, gw, OWNER, { viewport: { width: 390, height: 844 } });
  await phone.page.goto(gw.url + '/endpoints');
  await phone.page.getByRole('button', { name: 'Show report of mylab' }).click();
  const wide = await phone.page.evaluate('document.documentElement.scrollWidth') as number;
  assert.ok(wide <= 390, `the page is ${wide} px wide`);
  const pv = await axeSerious(phone.page);
  assert.is(pv.length, 0, describeViolations(pv));
  await shot(phone.page, 'dashboard-routing-endpoints-phone');
  assert.equal(phone.problems.list, []);
  await phone.ctx.close();
});

test('with saved provider keys turned off, the Provider keys page says so in words', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Provider keys' }).click();
  await page.getByRole('heading', { name: 'Provider keys', level: 1 }).waitFor();
  await page.getByRole('alert').getByText('Saved provider keys are turned off on this gateway.').waitFor();
  await page.getByText('byok.enabled').waitFor();
  assert.is(await page.getByRole('button', { name: /^Add key/ }).count(), 0);
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-routing-providers-off');
  // GET /me/byok answers 503 byok_disabled, which the browser logs as a failed load; nothing else went wrong.
  assert.equal(problems.list.filter((p) => !/status of 503/.test(p)), []);
  problems.list.length = 0;
});

test('a member sees chains and endpoints with no buttons to change them, may test an endpoint, and has no Provider keys page', async () => {
  // A team org (personal orgs have no members): its owner saves a chain and registers an endpoint.
  const lead = await signIn(gw, 'lead@endpoints-ui.example');
  const team = await (await lead.send('POST', '/me/orgs', { name: 'Routing team' })).json() as { id: string };
  await lead.send('POST', '/me/orgs/switch', { org_id: team.id });
  assert.is((await lead.send('PUT', '/me/routing/sandbox/echo', { steps: [{ provider: 'sandbox' }] })).status, 200);
  assert.is((await lead.send('POST', '/me/endpoints', { name: 'teamlab', base_url: lab.url })).status, 201);
  const inv = await (await lead.send('POST', '/me/members', { email: 'member@endpoints-ui.example', role: 'member' })).json() as { id: string };

  const m = await signedIn(browser, gw, 'member@endpoints-ui.example');
  await skipSurvey(m.page);
  const headers = { origin: gw.url };
  assert.is((await m.ctx.request.post(`${gw.url}/me/invitations/${inv.id}/accept`, { headers })).status(), 200);
  assert.is((await m.ctx.request.post(`${gw.url}/me/orgs/switch`, { data: { org_id: team.id }, headers })).status(), 200);

  await m.page.goto(gw.url + '/routing');
  await m.page.getByRole('list', { name: 'Routes tried for sandbox/echo, in order' }).getByText('sandbox').waitFor();
  await m.page.getByText('Owners and admins of Routing team edit routing chains.').waitFor();
  const nav = m.page.getByRole('navigation', { name: 'Dashboard' });
  assert.is(await nav.getByRole('link', { name: 'Provider keys' }).count(), 0, 'no Provider keys page in the navigation');
  assert.is(await nav.getByRole('link', { name: 'Routing' }).count(), 1);
  const main = m.page.getByRole('main');
  for (const name of [/^Edit/, /^Delete/, 'Save chain', 'Add a step']) assert.is(await main.getByRole('button', { name }).count(), 0, String(name));
  assert.is(await m.page.getByLabel('Model', { exact: true }).count(), 0, 'no editor');
  let v = await axeSerious(m.page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(m.page, 'dashboard-routing-member');

  await nav.getByRole('link', { name: 'Custom endpoints' }).click();
  await m.page.getByRole('heading', { name: 'teamlab' }).waitFor();
  for (const name of [/^Retest/, /^Remove/, 'Register and test']) assert.is(await main.getByRole('button', { name }).count(), 0, String(name));
  assert.is(await m.page.getByLabel('Name').count(), 0);
  await m.page.getByRole('button', { name: 'Show report of teamlab' }).click();
  await m.page.getByRole('region', { name: 'Compliance report of teamlab' }).getByText('SSE ending in [DONE]').waitFor();
  // Testing a config writes nothing, so a member may.
  await m.page.getByLabel('Base URL').fill(lab.url);
  await m.page.getByRole('button', { name: 'Test without saving' }).click();
  await m.page.getByRole('region', { name: 'Test report' }).getByText('Every check passed: the gateway calls this endpoint.').waitFor();
  v = await axeSerious(m.page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(m.page, 'dashboard-routing-endpoints-member');

  await m.page.goto(gw.url + '/providers');
  await m.page.getByText('This page needs the owner role in Routing team.').waitFor();
  assert.equal(m.problems.list, []);
  await m.ctx.close();
});

test.run();
