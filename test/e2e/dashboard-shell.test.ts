// The dashboard as served: the page and its hashed assets (caching, compression, the strict
// Content-Security-Policy), the app's own routes on reload, and in a real browser sign-in by
// login link, the one-time survey, the overview, themes, the phone layout and sign-out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { ROOT, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, themeOf, watchedPage } from '../support/browser.js';

let gw: GatewayProcess;
let browser: Browser;

test.before(async () => {
  gw = await startGateway();
  browser = await launchBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
});

const WEB = join(ROOT, 'dist', 'web');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('GET / is the dashboard page: strict CSP, not cached, and it names only same-origin hashed assets', async () => {
  const res = await fetch(gw.url + '/');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  assert.is(res.headers.get('cache-control'), 'no-cache');
  const csp = res.headers.get('content-security-policy')!;
  for (const part of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]) assert.ok(csp.includes(part), part);
  assert.not.match(csp, /unsafe-inline|unsafe-eval/);
  assert.is(res.headers.get('x-frame-options'), 'DENY');
  const html = await res.text();
  assert.not.match(html, /<script>(?!<\/script>)|https?:\/\//, 'no inline script and no absolute (CDN) address');
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  assert.ok(assets.length >= 2, html);
  // A second request with the ETag is answered 304.
  const again = await fetch(gw.url + '/', { headers: { 'if-none-match': res.headers.get('etag')! } });
  assert.is(again.status, 304);
});

test('every built asset is served byte for byte, raw, gzip and brotli, cached for a year', async () => {
  // The build writes .br and .gz beside each file (web/vite.config.ts); they are served as encodings, not by name.
  const built = readdirSync(join(WEB, 'assets'));
  const files = built.filter((f) => !/\.(br|gz)$/.test(f));
  assert.ok(built.some((f) => f.endsWith('.js.br')) && built.some((f) => f.endsWith('.js.gz')), 'precompressed at build');
  assert.is((await fetch(`${gw.url}/assets/${built.find((f) => f.endsWith('.br'))}`)).status, 404);
  assert.ok(files.some((f) => f.endsWith('.js')) && files.some((f) => f.endsWith('.css')));
  for (const f of files) {
    const want = sha(readFileSync(join(WEB, 'assets', f)));
    for (const enc of ['identity', 'gzip', 'br']) {
      const res = await fetch(`${gw.url}/assets/${f}`, { headers: { 'accept-encoding': enc } });
      assert.is(res.status, 200, f);
      assert.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      // fetch decodes what it asked for; a raw read checks the stored encodings themselves.
      const body = Buffer.from(await res.arrayBuffer());
      assert.is(sha(body), want, `${f} ${enc}`);
    }
  }
  const js = files.find((f) => f.endsWith('.js'))!;
  const http = await import('node:http');
  const raw = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    http.get(`${gw.url}/assets/${js}`, { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
    }).on('error', reject);
  });
  assert.is(raw.headers['content-encoding'], 'br');
  assert.is(sha(brotliDecompressSync(raw.body)), sha(readFileSync(join(WEB, 'assets', js))));
  const gz = await new Promise<Buffer>((resolve, reject) => {
    http.get(`${gw.url}/assets/${js}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve(Buffer.concat(parts)));
    }).on('error', reject);
  });
  assert.is(sha(gunzipSync(gz)), sha(readFileSync(join(WEB, 'assets', js))));
  assert.ok(raw.body.length < 150 * 1024, `first-page JavaScript is ${raw.body.length} bytes compressed`);
});

test("a browser's reload of a dashboard path gets the page; API paths and API clients keep the JSON 404", async () => {
  const page = await fetch(gw.url + '/keys?new=1', { headers: { accept: 'text/html,application/xhtml+xml' } });
  assert.is(page.status, 200);
  assert.match(await page.text(), /<div id="app">/);
  const api = await fetch(gw.url + '/keys');
  assert.is(api.status, 404);
  assert.is(((await api.json()) as { error: { code: string } }).error.code, 'not_found');
  for (const path of ['/v1/nope', '/me/nope', '/auth/nope/x/y']) {
    const res = await fetch(gw.url + path, { headers: { accept: 'text/html' } });
    assert.is(res.status, 404, path);
    assert.match(res.headers.get('content-type')!, /json/, path);
  }
});

test('GET /auth/methods lists only configured sign-in providers; login links always work', async () => {
  const res = await fetch(gw.url + '/auth/methods');
  assert.is(res.status, 200);
  assert.equal(await res.json(), { providers: [], login_link: true });
});

test('a browser with no session sees the sign-in page, accessible, with the login-link instructions', async () => {
  const ctx = await browser.newContext();
  const { page, problems } = await watchedPage(ctx);
  await page.goto(gw.url + '/usage');
  await page.getByRole('heading', { name: 'Sign in to the gateway' }).waitFor();
  await page.getByText('gw login-link --email you@example.com').waitFor();
  assert.is(await page.getByRole('link', { name: /Sign in with/ }).count(), 0, 'no provider is configured, so no button');
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'sign-in');
  assert.equal(problems.list, []);
  await ctx.close();
});

test('a first sign-in by login link lands on the overview with the survey; skipping it keeps it away; sign-out ends the session', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, 'first@example.com');
  const survey = page.getByRole('dialog', { name: 'How did you hear about us?' });
  await survey.waitFor();
  await shot(page, 'survey');
  await skipSurvey(page);
  const me = await (await ctx.request.get(gw.url + '/me')).json();
  assert.is(me.attribution_pending, false, 'skipping answered the survey once');
  await page.reload();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  assert.is(await survey.isVisible(), false);
  // A fresh org is shown how to start, with a command that works against this gateway.
  await page.getByRole('heading', { name: 'Get started' }).waitFor();
  const snippet = await page.locator('pre.snippet').innerText();
  assert.ok(snippet.includes(`curl ${gw.url}/v1/chat/completions`), snippet);
  assert.ok(await page.getByText('Balance').isVisible());
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'overview');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the gateway' }).waitFor();
  assert.is((await ctx.request.get(gw.url + '/me')).status(), 401);
  assert.equal(problems.list, []);
  await ctx.close();
});

test('the dark theme and the phone layout: navigation behind a menu button, keyboard reachable, no violations', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, 'phone@example.com', { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  await skipSurvey(page);
  assert.is(await themeOf(page), 'dark');
  const nav = page.getByRole('navigation', { name: 'Dashboard' });
  assert.is(await nav.isVisible(), false);
  const menu = page.getByRole('button', { name: 'Menu' });
  await menu.focus();
  await page.keyboard.press('Enter');
  await nav.waitFor();
  assert.is(await menu.getAttribute('aria-expanded'), 'true');
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'overview-phone-dark');
  await nav.getByRole('link', { name: 'Usage' }).click();
  await page.waitForURL(gw.url + '/usage');
  await nav.waitFor({ state: 'hidden' }); // the menu closes on navigation
  // The theme button switches and remembers.
  await page.getByRole('button', { name: 'Use the light theme' }).click();
  await page.reload();
  await page.getByRole('heading', { level: 1 }).waitFor();
  assert.is(await themeOf(page), 'light');
  assert.equal(problems.list, []);
  await ctx.close();
});

test.run();
