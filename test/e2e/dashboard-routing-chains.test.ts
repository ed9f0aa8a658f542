// The Routing page in a real browser: an owner builds a model's chain in the editor (add,
// remove, reorder by keyboard), saves it, and the next request follows it; reordering back
// restores the other provider. Step errors and unknown models in words, deleting with
// confirmation, ids with a slash, the dark theme and the phone layout. The Custom endpoints
// page's refusal of internal addresses is here too: this gateway keeps the default guard.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, type PageProblems } from '../support/browser.js';
import { bearer, chatBody } from '../support/wait.js';

const OWNER = 'owner@routing-ui.example';
let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let problems: PageProblems;
let key: string;

/** A chat request for llama-3.3-70b-instruct with the org's key; the provider that served it. */
async function servedBy(): Promise<string | null> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
  assert.is(r.status, 200, await r.clone().text());
  await r.arrayBuffer();
  return r.headers.get('x-gw-provider');
}
const providerOf = (n: number) => page.getByLabel(`Step ${n} Provider`);
const stepCount = () => page.locator('.chain-steps > li').count();

test.before(async () => {
  [groq, together] = await Promise.all([startMockProvider(), startMockProvider()]);
  // Two providers of one model (groq first in the catalog's order); the breaker never opens here.
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' } },
  });
  browser = await launchBrowser();
  ({ ctx, page, problems } = await signedIn(browser, gw, OWNER));
  await skipSurvey(page);
  const me = await (await ctx.request.get(gw.url + '/me')).json();
  await gw.cli('org', 'credit', me.org.id, '100');
  const created = await ctx.request.post(gw.url + '/me/keys', { data: { name: 'routing-ui' }, headers: { origin: gw.url } });
  assert.is(created.status(), 201, await created.text());
  key = (await created.json()).key;
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
  await Promise.all([groq?.close(), together?.close()]);
});

test('the owner reorders a chain in the editor, by keyboard, and the next request follows it; reordering back restores the first provider', async () => {
  assert.is(await servedBy(), 'groq', 'the catalog order first');
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Routing' }).click();
  await page.getByRole('heading', { name: 'Routing', level: 1 }).waitFor();
  await page.getByText('No saved chains: every model uses the catalog\'s routing.').waitFor();

  await page.getByLabel('Model', { exact: true }).selectOption('llama-3.3-70b-instruct');
  await page.getByText('No saved chain yet').waitFor();
  // A new chain starts from the catalog's order: groq, together, fireworks, deepinfra.
  assert.is(await stepCount(), 4);
  assert.equal(await Promise.all([1, 2, 3, 4].map((n) => providerOf(n).inputValue())), ['groq', 'together', 'fireworks', 'deepinfra']);
  await page.getByRole('button', { name: 'Remove step 4' }).click();
  await page.getByRole('button', { name: 'Remove step 3' }).click();
  assert.is(await stepCount(), 2);

  // Keyboard only: focus "Move step 2 up" and press Enter; focus follows the moved step.
  await page.getByRole('button', { name: 'Move step 2 up' }).focus();
  await page.keyboard.press('Enter');
  assert.equal([await providerOf(1).inputValue(), await providerOf(2).inputValue()], ['together', 'groq']);
  await page.waitForFunction(() => (globalThis as any).document.activeElement.getAttribute('aria-label') === 'Move step 1 down'); // focus stays on the step that moved
  assert.ok(await page.getByRole('button', { name: 'Move step 1 up' }).isDisabled());
  assert.is(await page.locator('.chain-editor p[role="status"]').innerText(), 'together (llama-3.3-70b-instruct) is now step 1 of 2.', 'said to screen readers');
  await shot(page, 'dashboard-routing-editor');
  await page.getByRole('button', { name: 'Save chain' }).click();
  await page.getByText('Saved. The next request for llama-3.3-70b-instruct follows this chain.').waitFor();

  together.reset();
  assert.is(await servedBy(), 'together', 'the saved chain puts together first');
  assert.is(together.requests.length, 1);
  // The saved list shows the routes in the order requests try them.
  const routes = page.getByRole('list', { name: 'Routes tried for llama-3.3-70b-instruct, in order' });
  await routes.getByText('together').waitFor();
  assert.equal((await routes.locator('li').allInnerTexts()).map((t) => t.trim()), ['together', 'groq']);

  // Back: the mouse this time.
  await page.getByRole('button', { name: 'Move step 2 up' }).click();
  assert.equal([await providerOf(1).inputValue(), await providerOf(2).inputValue()], ['groq', 'together']);
  await page.getByRole('button', { name: 'Save chain' }).click();
  await page.getByText('Saved. The next request for llama-3.3-70b-instruct follows this chain.').waitFor();
  // The list of chains is read again before the notice shows: it is already in the new order.
  assert.equal((await routes.locator('li').allInnerTexts()).map((t) => t.trim()), ['groq', 'together'], 'the list as the notice shows');
  assert.is(await servedBy(), 'groq');
  assert.equal(problems.list, []);
});

test('step errors are shown in words on the step they name; a chain needs 1 to 10 steps; an unknown model is named', async () => {
  await page.goto(gw.url + '/routing');
  await page.getByRole('button', { name: 'Edit the chain for llama-3.3-70b-instruct' }).click();
  await page.getByRole('button', { name: 'Delete chain', exact: true }).waitFor();
  await page.waitForFunction(() => (globalThis as any).document.activeElement.id === 'chain-model'); // Edit moves the focus to the editor
  assert.match(page.url(), /\/routing\?model=llama-3\.3-70b-instruct$/);
  assert.is(await stepCount(), 2);
  await page.getByRole('button', { name: 'Add a step' }).click();
  await page.waitForFunction(() => {
    const d = (globalThis as any).document;
    return d.activeElement.id === d.querySelector('.chain-steps > li:last-child select').id;
  }); // focus moves to the new step
  await providerOf(3).selectOption('groq');
  await page.getByRole('button', { name: 'Save chain' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /^The routing steps need a fix\. Step 3: it repeats step 1\.$/);
  assert.is(await providerOf(3).getAttribute('aria-invalid'), 'true');
  await page.getByRole('button', { name: 'Remove step 3' }).click();
  assert.is(await alert.count(), 0, 'the error goes with the change');

  for (let n = await stepCount(); n > 0; n--) await page.getByRole('button', { name: `Remove step ${n}` }).click();
  await page.getByText('No steps. Add one: a chain needs 1 to 10.').waitFor();
  await page.getByRole('button', { name: 'Save chain' }).click();
  await page.getByRole('alert').getByText('A chain needs 1 to 10 steps.').waitFor();
  for (let n = 0; n < 10; n++) await page.getByRole('button', { name: 'Add a step' }).click();
  assert.is(await stepCount(), 10);
  assert.ok(await page.getByRole('button', { name: 'Add a step' }).isDisabled());
  await page.getByText('A chain has at most 10 steps.').waitFor();
  // Nothing was saved: the saved chain is still groq then together.
  const saved = await (await ctx.request.get(gw.url + '/me/routing/llama-3.3-70b-instruct')).json();
  assert.equal(saved.steps.map((s: { provider: string }) => s.provider), ['groq', 'together']);

  await page.goto(gw.url + '/routing?model=no-such-model');
  await page.getByRole('alert').getByText("That model is not in the catalog. 'no-such-model' is not a catalog model id.").waitFor();
  assert.equal(problems.list, []);
});

test('a chain is deleted only after confirmation, and requests go back to the catalog order; a model id with a slash saves and deletes too', async () => {
  const put = await ctx.request.put(gw.url + '/me/routing/llama-3.3-70b-instruct',
    { data: { steps: [{ provider: 'together' }, { provider: 'groq' }] }, headers: { origin: gw.url } });
  assert.is(put.status(), 200);
  assert.is(await servedBy(), 'together');
  await page.goto(gw.url + '/routing');
  const remove = page.getByRole('button', { name: 'Delete the chain for llama-3.3-70b-instruct' });
  await remove.click();
  const dialog = page.getByRole('dialog', { name: 'Delete this chain?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.is(await servedBy(), 'together', 'cancelled: still the chain');
  await remove.click();
  await dialog.getByRole('button', { name: 'Delete chain' }).click();
  await page.getByText("The chain for llama-3.3-70b-instruct is deleted: its requests use the catalog's routing again.").waitFor();
  await page.getByText('No saved chains').waitFor();
  assert.is(await servedBy(), 'groq');

  await page.getByLabel('Model', { exact: true }).selectOption('sandbox/echo');
  await page.getByText('No saved chain yet').waitFor();
  await page.getByRole('button', { name: 'Save chain' }).click();
  await page.getByText('Saved. The next request for sandbox/echo follows this chain.').waitFor();
  assert.is((await ctx.request.get(gw.url + '/me/routing/sandbox%2Fecho')).status(), 200);
  await page.getByRole('button', { name: 'Delete the chain for sandbox/echo' }).waitFor();
  // Deleting from the editor asks too.
  await page.getByRole('button', { name: 'Delete chain', exact: true }).click();
  await dialog.getByRole('button', { name: 'Delete chain' }).click();
  await page.getByText('No saved chains').waitFor();
  assert.is((await ctx.request.get(gw.url + '/me/routing/sandbox%2Fecho')).status(), 404);
  assert.equal(problems.list, []);
});

test('the Routing page is accessible in light and dark, and fits a 390 px phone', async () => {
  await ctx.request.put(gw.url + '/me/routing/llama-3.3-70b-instruct',
    { data: { steps: [{ provider: 'together' }, { model: 'llama-3.1-8b-instruct', provider: 'deepinfra' }, { provider: 'groq' }] }, headers: { origin: gw.url } });
  await page.goto(gw.url + '/routing?model=llama-3.3-70b-instruct');
  await page.getByRole('button', { name: 'Delete chain', exact: true }).waitFor();
  let v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-routing');

  for (const opts of [{ colorScheme: 'dark' as const }, { viewport: { width: 390, height: 844 } }]) {
    const other = await signedIn(browser, gw, OWNER, opts);
    await other.page.goto(gw.url + '/routing?model=llama-3.3-70b-instruct');
    await other.page.getByRole('button', { name: 'Delete chain', exact: true }).waitFor();
    v = await axeSerious(other.page);
    assert.is(v.length, 0, describeViolations(v));
    const wide = await other.page.evaluate('document.documentElement.scrollWidth') as number;
    assert.ok(wide <= (opts.viewport?.width ?? 1280), `the page is ${wide} px wide`);
    await shot(other.page, opts.colorScheme ? 'dashboard-routing-dark' : 'dashboard-routing-phone');
    assert.equal(other.problems.list, []);
    await other.ctx.close();
  }
  await ctx.request.delete(gw.url + '/me/routing/llama-3.3-70b-instruct', { headers: { origin: gw.url } });
});

test('Custom endpoints: an internal base URL is refused in words, on register and on test, and nothing is saved', async () => {
  groq.reset();
  await page.goto(gw.url + '/endpoints');
  await page.getByRole('heading', { name: 'Register an endpoint' }).waitFor();
  await page.getByLabel('Name').fill('inside');
  await page.getByLabel('Base URL').fill(groq.url);
  await page.getByRole('button', { name: 'Register and test' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(),
    /^The gateway will not call that base URL: 127\.0\.0\.1 resolves to 127\.0\.0\.1, an internal address \(server-side request forgery guard\)\. Use the endpoint's public address\.$/);
  await page.getByLabel('Base URL').fill('http://localhost:9/v1');
  await page.getByRole('button', { name: 'Test without saving' }).click();
  await page.getByRole('alert').getByText(/localhost resolves to .*, an internal address/).waitFor();
  assert.is(groq.requests.length, 0, 'the gateway never called it');
  await page.getByText('No endpoints registered.').waitFor();
  await shot(page, 'dashboard-routing-endpoint-refused');
  assert.equal(problems.list, []);
});

test.run();
