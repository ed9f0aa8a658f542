// The Provider keys page in a real browser: an owner saves an OpenAI key (checked live against a
// mock OpenAI), sees only its masked form, tests it, lists and copies its discovered models,
// uses one with fetch, and removes it after confirming. Refused and unreachable keys in words;
// a saved key whose provider stops answering tests as unreachable.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, type PageProblems } from '../support/browser.js';
import { bearer, chatBody } from '../support/wait.js';

const OWNER = 'owner@byok-ui.example';
const ORG_KEY = 'sk-org-own-key-0000wxyz';
let gw: GatewayProcess;
let openai: MockProvider;
let groq: MockProvider;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let problems: PageProblems;
let key: string;

const chat = (model: string) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model }) });
const card = (name: string) => page.locator('.byok-list > li').filter({ has: page.getByRole('heading', { name, exact: true }) });

test.before(async () => {
  [openai, groq] = await Promise.all([startMockProvider(), startMockProvider()]);
  gw = await startGateway({
    // OpenAI has no platform key: only the org's own key reaches it. Nothing listens on port 9 (together).
    providers: { openai: { baseUrl: openai.url }, groq: { baseUrl: groq.url, apiKey: 'gsk-platform' }, together: { baseUrl: 'http://127.0.0.1:9/v1' } },
  });
  browser = await launchBrowser();
  ({ ctx, page, problems } = await signedIn(browser, gw, OWNER));
  await skipSurvey(page);
  const me = await (await ctx.request.get(gw.url + '/me')).json();
  await gw.cli('org', 'credit', me.org.id, '100');
  key = (await (await ctx.request.post(gw.url + '/me/keys', { data: { name: 'byok-ui' }, headers: { origin: gw.url } })).json()).key;
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
  await Promise.all([openai?.close(), groq?.close()]);
});

test('an owner saves a key: it is checked live, the input clears and only the masked form is ever shown; test and models work', async () => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Provider keys' }).click();
  await page.getByRole('heading', { name: 'Provider keys', level: 1 }).waitFor();
  await card('OpenAI').getByText('No key', { exact: true }).waitFor();
  const names = await page.locator('.byok-list > li h2').allInnerTexts();
  assert.ok(names.includes('OpenAI') && names.includes('Groq'), names.join(', '));
  assert.not.ok(names.some((n) => n.startsWith('Sandbox') || n.startsWith('Speaches')), 'providers that take no saved key are not listed');

  await card('OpenAI').getByRole('button', { name: 'Add key for OpenAI' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add the OpenAI key' });
  const input = dialog.getByLabel('OpenAI API key');
  assert.is(await input.getAttribute('type'), 'password');
  await page.waitForFunction(() => (globalThis as any).document.activeElement.type === 'password'); // focus starts in the key field (set once the dialog has painted)
  await input.fill(ORG_KEY);
  await dialog.getByLabel('Label (optional)').fill('team key');
  await dialog.getByRole('button', { name: 'Check and save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByText('Saved the OpenAI key sk-…wxyz: OpenAI accepted it and listed 1 model.').waitFor();
  assert.is(openai.requests[0].path, '/v1/models');
  assert.is(openai.requests[0].headers.authorization, `Bearer ${ORG_KEY}`, 'checked live with the key');

  const openaiCard = card('OpenAI');
  await openaiCard.getByText('Key saved', { exact: true }).waitFor();
  await openaiCard.getByText('sk-…wxyz').waitFor();
  await openaiCard.getByText('team key').waitFor();
  assert.not.ok((await page.content()).includes(ORG_KEY), 'the full key is nowhere in the page');
  // Opening the form again starts empty: the key is never put back in an input.
  await openaiCard.getByRole('button', { name: 'Replace the OpenAI key' }).click();
  const replace = page.getByRole('dialog', { name: 'Replace the OpenAI key' });
  assert.is(await replace.getByLabel('OpenAI API key').inputValue(), '');
  assert.is(await replace.getByLabel('Label (optional)').inputValue(), 'team key');
  await replace.getByRole('button', { name: 'Cancel' }).click();
  await replace.waitFor({ state: 'hidden' });

  await openaiCard.getByRole('button', { name: 'Test the OpenAI key' }).click();
  await openaiCard.getByRole('status').getByText(/^The key works: OpenAI accepted it and listed 1 model/).waitFor();
  assert.is(openai.requests.at(-1)!.headers.authorization, `Bearer ${ORG_KEY}`);

  await openaiCard.getByRole('button', { name: 'Models of the OpenAI key' }).click();
  const models = page.getByRole('region', { name: 'Models of the OpenAI key' });
  await models.getByRole('rowheader', { name: 'openai/mock-model' }).waitFor();
  await models.getByRole('button', { name: 'Copy' }).click();
  await models.getByRole('button', { name: 'Copied' }).waitFor();
  assert.is(await page.evaluate('navigator.clipboard.readText()'), 'openai/mock-model');
  await shot(page, 'dashboard-routing-providers');

  // The discovered id works as a model with no upstream_key: the org's key is used.
  const r = await chat('openai/mock-model');
  assert.is(r.status, 200);
  assert.is(openai.requests.at(-1)!.headers.authorization, `Bearer ${ORG_KEY}`);
  assert.equal(problems.list, []);
});

test('a refused or malformed key and an unreachable provider are explained in words and nothing is saved', async () => {
  await page.goto(gw.url + '/providers');
  await card('Groq').getByRole('button', { name: 'Add key for Groq' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add the Groq key' });
  const attempts: [string, RegExp][] = [
    ['gsk-rejected-key-123', /^That provider key does not look right\. groq refused the key \(401\); nothing was saved\.$/],
    ['short', /^That provider key does not look right\. That does not look like a Groq key: 8 to 512 visible ASCII characters\.$/],
  ];
  for (const [typed, words] of attempts) {
    await dialog.getByLabel('Groq API key').fill(typed);
    await dialog.getByRole('button', { name: 'Check and save' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText(words).waitFor();
  }
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await card('Groq').getByText('No key', { exact: true }).waitFor();

  await card('Together AI').getByRole('button', { name: 'Add key for Together AI' }).click();
  const together = page.getByRole('dialog', { name: 'Add the Together AI key' });
  await together.getByLabel('Together AI API key').fill('tg-own-key-12345');
  await together.getByRole('button', { name: 'Check and save' }).click();
  await together.getByRole('alert').getByText(/^This is not available on this gateway right now\. Could not check the key: together did not answer: .*; nothing was saved\.$/).waitFor();
  await together.getByRole('button', { name: 'Cancel' }).click();
  const listed = await (await ctx.request.get(gw.url + '/me/byok')).json();
  assert.equal(listed.data.filter((p: { saved: unknown }) => p.saved).map((p: { provider: string }) => p.provider), ['openai']);
  // The unreachable check answers 503, which the browser logs as a failed load; nothing else went wrong.
  assert.equal(problems.list.filter((p) => !/status of 503/.test(p)), []);
  problems.list.length = 0;
});

test('a saved key whose provider stops answering tests as unreachable, in words, and is kept', async () => {
  await page.goto(gw.url + '/providers');
  await card('Groq').getByRole('button', { name: 'Add key for Groq' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add the Groq key' });
  await dialog.getByLabel('Groq API key').fill('gsk-own-ok-key-123');
  await dialog.getByLabel('Use it for every call to Groq, catalog models included').check();
  await dialog.getByRole('button', { name: 'Check and save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  const groqCard = card('Groq');
  await groqCard.getByText('every call to Groq, catalog models included').waitFor();
  await groq.close();
  await groqCard.getByRole('button', { name: 'Test the Groq key' }).click();
  await groqCard.getByRole('alert').getByText(/^Groq could not be reached to check the key \(groq did not answer: .*\)\. The key is kept; test again later\.$/).waitFor();
  await groqCard.getByText('gsk…-123').waitFor();
  assert.equal(problems.list, []);
});

test('a key is removed only after confirmation; its provider/model-id stops working', async () => {
  await page.goto(gw.url + '/providers');
  const remove = card('OpenAI').getByRole('button', { name: 'Remove the OpenAI key' });
  await remove.click();
  const dialog = page.getByRole('dialog', { name: 'Remove the OpenAI key?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.is((await chat('openai/mock-model')).status, 200, 'cancelled: the key is still used');
  await remove.click();
  await dialog.getByRole('button', { name: 'Remove key' }).click();
  await page.getByText('Removed the OpenAI key.').waitFor();
  await card('OpenAI').getByText('No key', { exact: true }).waitFor();
  const gone = await chat('openai/mock-model');
  assert.is(gone.status, 404);
  assert.equal(problems.list, []);
});

test('the Provider keys page is accessible in light and dark, dialog included, and fits a 390 px phone', async () => {
  await page.goto(gw.url + '/providers');
  await card('Groq').getByText('Key saved').waitFor();
  let v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await card('OpenAI').getByRole('button', { name: 'Add key for OpenAI' }).click();
  await page.getByRole('dialog', { name: 'Add the OpenAI key' }).waitFor();
  v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-routing-providers-dialog');
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'hidden' });

  for (const opts of [{ colorScheme: 'dark' as const }, { viewport: { width: 390, height: 844 } }]) {
    const other = await signedIn(browser, gw, OWNER, opts);
    await other.page.goto(gw.url + '/providers');
    await other.page.getByText('gsk…-123').waitFor();
    v = await axeSerious(other.page);
    assert.is(v.length, 0, describeViolations(v));
    const wide = await other.page.evaluate('document.documentElement.scrollWidth') as number;
    assert.ok(wide <= (opts.viewport?.width ?? 1280), `the page is ${wide} px wide`);
    await shot(other.page, opts.colorScheme ? 'dashboard-routing-providers-dark' : 'dashboard-routing-providers-phone');
    assert.equal(other.problems.list, []);
    await other.ctx.close();
  }
  assert.equal(problems.list, []);
});

test.run();
