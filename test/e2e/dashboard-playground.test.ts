// The Playground in a real browser against the real gateway: a key made on the keys page is
// offered through this tab's sessionStorage only; a streamed chat to sandbox/echo and to a paid
// model (a mock upstream on loopback) shows the answer as it arrives, tokens, the provider, time
// to first token, latency and the ledger's cost; Stop aborts the stream upstream; a refused key,
// an empty balance and a rate limit are shown in words.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page, Request } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, themeOf } from '../support/browser.js';

let gw: GatewayProcess;
let mock: MockProvider;
let browser: Browser;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ limits: { publicRpmPerIp: 100_000 }, providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
  browser = await launchBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
  await mock?.close();
});

async function noViolations(page: Page, what: string): Promise<void> {
  const v = await axeSerious(page);
  assert.is(v.length, 0, `${what}:\n${describeViolations(v)}`);
}

/** The facts shown beside the answer, by their label. */
async function facts(page: Page): Promise<Record<string, string>> {
  const dt = await page.locator('.play-facts dt').allInnerTexts();
  const dd = await page.locator('.play-facts dd').allInnerTexts();
  return Object.fromEntries(dt.map((k, i) => [k, dd[i]]));
}

const answer = (page: Page) => page.locator('pre.play-answer');

async function send(page: Page, prompt: string): Promise<void> {
  await page.getByLabel('Prompt').fill(prompt);
  await page.getByRole('button', { name: 'Send' }).click();
}

test('a key made on the keys page goes to the Playground (sessionStorage only); a streamed chat to sandbox/echo shows answer, tokens, provider, latency and cost', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, 'play@example.com');
  await page.getByRole('dialog', { name: 'How did you hear about us?' }).waitFor();
  await skipSurvey(page);
  const me = await (await ctx.request.get(gw.url + '/me')).json();
  await gw.cli('org', 'credit', me.org.id, '100');

  await page.goto(gw.url + '/keys?new=1');
  const create = page.getByRole('dialog', { name: 'Create an API key' });
  await create.getByLabel('Name', { exact: true }).fill('playground');
  await create.getByRole('button', { name: 'Create key' }).click();
  const reveal = page.getByRole('dialog', { name: 'Your new API key' });
  const key = (await reveal.locator('pre.secret').innerText()).trim();
  await reveal.getByRole('button', { name: 'Try it in the Playground' }).click();
  await page.waitForURL(gw.url + '/playground');
  await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
  const keyField = page.getByLabel('API key');
  assert.is(await keyField.inputValue(), key, 'the new key is offered');
  assert.is(await keyField.getAttribute('type'), 'password');
  await page.getByText('The key you just created, kept in this tab only.').waitFor();
  const stores = await page.evaluate('({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage) })') as { local: string; session: string };
  assert.not.ok(stores.local.includes(key), 'never in localStorage');
  assert.ok(stores.session.includes(key), 'in this tab\'s sessionStorage');
  await page.getByLabel('Model').locator('option[value="sandbox/echo"]').waitFor({ state: 'attached' });
  assert.is(await page.getByLabel('Model').inputValue(), 'sandbox/echo', 'the free local model is the default');

  const sent: Request[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/v1/chat/completions')) sent.push(r);
  });
  await send(page, 'namaste from the playground');
  await answer(page).filter({ hasText: 'echo: namaste from the playground' }).waitFor();
  await page.locator('.play-facts dd').filter({ hasText: '₹0.00' }).waitFor({ timeout: 10_000 });
  const f = await facts(page);
  assert.is(f.Provider, 'sandbox');
  assert.is(f.Model, 'sandbox/echo');
  assert.match(f.Tokens, /^\d+ in, \d+ out \(\d+ in all\)$/);
  assert.match(f['Time to first token'], /^\d+ ms$/);
  assert.match(f['Total latency'], /^\d+ ms$/);
  assert.match(f['Request id'], /\S{8,}/);
  // A streamed request with usage asked for, authenticated by the key and not the session.
  assert.is(sent.length, 1);
  assert.equal(sent[0].postDataJSON(), {
    model: 'sandbox/echo', messages: [{ role: 'user', content: 'namaste from the playground' }], stream: true, stream_options: { include_usage: true },
  });
  const headers = await sent[0].allHeaders();
  assert.is(headers.authorization, `Bearer ${key}`);
  assert.is(headers.cookie, undefined, 'the session cookie is not sent with the key');
  // The ledger row the page read is this request's.
  const events = (await (await ctx.request.get(gw.url + '/me/activity/events')).json()).data;
  const row = events.find((e: any) => e.request_id === f['Request id']);
  assert.ok(row, 'the request id shown is in the ledger');
  assert.equal([row.provider, row.streamed, row.key_prefix], ['sandbox', true, key.slice(0, 12)]);
  await noViolations(page, 'the playground');
  await shot(page, 'dashboard-playground');

  await page.getByRole('button', { name: 'Use the dark theme' }).click();
  assert.is(await themeOf(page), 'dark');
  await noViolations(page, 'the playground, dark');
  await shot(page, 'dashboard-playground-dark');
  await page.getByRole('button', { name: 'Use the light theme' }).click();
  assert.equal(problems.list, []);
  await ctx.close();
});

test('a paid model streams token by token: tokens, provider and ₹ cost from the ledger; Stop aborts the stream upstream', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, 'play@example.com');
  const made = await (await ctx.request.post(gw.url + '/me/keys', { data: { name: 'paid' }, headers: { origin: gw.url } })).json();
  await page.goto(gw.url + '/playground');
  await page.getByLabel('Model').selectOption('llama-3.3-70b-instruct');
  await page.getByText('₹52.00 in, ₹69.50 out per million tokens.').waitFor();
  await page.getByLabel('API key').fill(made.key);

  mock.setDefault({ kind: 'stream', chunks: 5, intervalMs: 20, usage: { prompt_tokens: 1000, completion_tokens: 2000 } });
  await send(page, 'count for me');
  await answer(page).filter({ hasText: streamText(5).trim() }).waitFor();
  await page.locator('.play-facts dd').filter({ hasText: /^₹/ }).waitFor({ timeout: 10_000 });
  let f = await facts(page);
  assert.is(f.Provider, 'groq');
  assert.is(f.Tokens, '1,000 in, 2,000 out (3,000 in all)');
  // 1,000 × ₹52 + 2,000 × ₹69.50 per million tokens (the groq route's price).
  assert.is(f.Cost, '₹0.19');
  assert.is(mock.requests.at(-1)!.body.stream, true);

  // A long stream: the text grows while it streams; Stop ends it here and upstream.
  mock.setDefault({ kind: 'stream', chunks: 400, intervalMs: 50 });
  const aborted = mock.aborted;
  await send(page, 'a long one');
  await answer(page).filter({ hasText: 'tok3 ' }).waitFor();
  f = await facts(page);
  assert.is(f['Total latency'], 'streaming…');
  assert.match(f['Time to first token'], /\d/);
  assert.ok(await page.getByRole('button', { name: 'Stop' }).isEnabled());
  await shot(page, 'dashboard-playground-streaming');
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByText('Stopped. What arrived before is kept below.').waitFor();
  const partial = await answer(page).innerText();
  assert.ok(partial.startsWith('tok0 tok1 tok2 tok3') && !partial.includes('tok399'), partial);
  await mock.waitForAbort(5_000);
  assert.ok(mock.aborted > aborted, 'the gateway dropped the upstream stream');
  assert.ok(await page.getByRole('button', { name: 'Send' }).isEnabled());
  await noViolations(page, 'the playground after a stop');
  mock.setDefault({ kind: 'ok' });
  assert.equal(problems.list, []);
  await ctx.close();
});

test('refusals in words: an invalid key (401), an org without credit (402), a rate limit (429), and an empty prompt', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, 'play@example.com');
  await page.goto(gw.url + '/playground');
  await page.getByLabel('Model').selectOption('sandbox/echo');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('alert').filter({ hasText: 'Paste one of your API keys first.' }).waitFor();

  await page.getByLabel('API key').fill('gw-this-is-not-a-key');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('alert').filter({ hasText: 'Write a prompt first.' }).waitFor();
  await send(page, 'hello');
  await page.getByRole('alert').filter({ hasText: 'The API key was refused: it is missing, revoked or expired.' }).waitFor();
  assert.not.ok((await page.locator('main').innerText()).includes('invalid_api_key'), 'no raw code');
  await noViolations(page, 'the playground with an error');
  await shot(page, 'dashboard-playground-401');

  // Another org's standard key whose balance a large answer used up.
  const broke = await gw.orgAndKey({ credit: 1 });
  mock.setDefault({ kind: 'ok', usage: { prompt_tokens: 100_000, completion_tokens: 100_000 } });
  const spend = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${broke.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.is(spend.status, 200);
  mock.setDefault({ kind: 'ok' });
  await page.getByLabel('Model').selectOption('llama-3.3-70b-instruct');
  await page.getByLabel('API key').fill(broke.key);
  await send(page, 'more please');
  await page.getByRole('alert').filter({ hasText: 'The organisation has no credit left. Top up to continue.' }).waitFor();

  const limited = await gw.orgAndKey({ keyArgs: ['--rpm', '1'] });
  await page.getByLabel('Model').selectOption('sandbox/echo');
  await page.getByLabel('API key').fill(limited.key);
  await send(page, 'one');
  await answer(page).filter({ hasText: 'echo: one' }).waitFor();
  // Another org's key: its ledger is not this org's to read, and the page says so.
  await page.locator('.play-facts dd').filter({ hasText: 'Not in this organisation’s ledger' }).waitFor({ timeout: 15_000 });
  await send(page, 'two');
  const limitedAlert = page.getByRole('alert').filter({ hasText: 'Too many requests in the last minute.' });
  await limitedAlert.waitFor();
  assert.match(await limitedAlert.innerText(), /The gateway asks to wait \d+ s before the next try\./);
  await shot(page, 'dashboard-playground-429');
  assert.equal(problems.list, []);
  await ctx.close();
});

test('at 390 px the playground stacks and fits the screen', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, 'play@example.com', { viewport: { width: 390, height: 844 } });
  await page.goto(gw.url + '/playground');
  await page.getByLabel('Model').selectOption('sandbox/echo');
  await page.getByLabel('API key').fill('gw-this-is-not-a-key');
  await send(page, 'hello');
  await page.getByRole('alert').filter({ hasText: 'The API key was refused' }).waitFor();
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok((width as number) <= 390, `the page is ${width} px wide`);
  await noViolations(page, 'the playground at 390 px');
  await shot(page, 'dashboard-playground-phone');
  assert.equal(problems.list, []);
  await ctx.close();
});

test.run();
