// Sign-in in a real browser through a real OpenID provider: the sign-in page shows a button for
// each configured method only, the provider's login and consent pages are answered as a person
// would, and the browser lands on the dashboard signed in; a deep link survives the round trip.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startOidcServer, type OidcServer } from '../support/oidc-server.js';
import { axeSerious, describeViolations, launchBrowser, shot, skipSurvey, watchedPage } from '../support/browser.js';

let gw: GatewayProcess;
let idp: OidcServer;
let browser: Browser;

test.before(async () => {
  idp = await startOidcServer({ claimsInIdToken: true });
  idp.accounts.set('meera', { email: 'meera@corp.example', email_verified: true, name: 'मीरा शर्मा' });
  gw = await startGateway({
    auth: {
      oidc: {
        corp: { issuer: idp.issuer, clientId: 'gw-dashboard', clientSecret: 'corp-secret', name: 'Corp SSO' },
        // Known but without credentials: not configured, so no button.
        half: { issuer: idp.issuer },
      },
    },
  });
  await idp.configure([{ client_id: 'gw-dashboard', client_secret: 'corp-secret', redirect_uris: [`${gw.url}/auth/corp/callback`] }]);
  browser = await launchBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
  await idp?.close();
});

test('/auth/methods names only the configured provider, with its display name', async () => {
  const res = await fetch(gw.url + '/auth/methods');
  assert.equal(await res.json(), { providers: [{ id: 'corp', name: 'Corp SSO', url: '/auth/corp' }], login_link: true });
});

test('a person signs in with the OpenID provider from the sign-in page and lands where they were going', async () => {
  const ctx = await browser.newContext();
  const { page, problems } = await watchedPage(ctx);
  await page.goto(gw.url + '/usage?from=2026-11-01');
  const button = page.getByRole('link', { name: 'Sign in with Corp SSO' });
  await button.waitFor();
  assert.is(await page.getByRole('link', { name: /Sign in with/ }).count(), 1, 'one button: the unconfigured provider has none');
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
  await shot(page, 'dashboard-sign-in-sso');
  await button.click();
  // The provider's own pages: login, then consent.
  await page.waitForURL((u) => u.origin === idp.issuer);
  await page.locator('input[name="login"]').fill('meera');
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  await page.waitForLoadState();
  if (new URL(page.url()).origin === idp.issuer) await page.locator('button[type="submit"]').click();
  await page.waitForURL(gw.url + '/usage?from=2026-11-01');
  await page.getByRole('heading', { name: 'Usage' }).waitFor();
  await skipSurvey(page);
  // The name from the provider, in Devanagari, is the one shown in the header.
  assert.ok(await page.getByText('मीरा शर्मा').first().isVisible());
  const me = await (await ctx.request.get(gw.url + '/me')).json();
  assert.is(me.email, 'meera@corp.example');
  await shot(page, 'dashboard-signed-in-sso');
  // The provider's own pages ask for fonts on the internet; only the dashboard's pages must be clean.
  assert.equal(problems.list.filter((p) => !p.includes(`(on ${idp.issuer}`)), []);
  await ctx.close();
});

test('a used login link opened in a browser lands on the sign-in page saying why; an API client still gets the envelope', async () => {
  const { url } = await gw.cli('login-link', '--email', 'twice@example.com', '--base-url', gw.url);
  assert.is((await fetch(url, { redirect: 'manual' })).status, 302);
  const api = await fetch(url, { redirect: 'manual' });
  assert.is(api.status, 403);
  assert.is(((await api.json()) as { error: { code: string } }).error.code, 'forbidden');
  const ctx = await browser.newContext();
  const { page, problems } = await watchedPage(ctx);
  await page.goto(url);
  await page.waitForURL((u) => u.pathname === '/sign-in');
  await page.getByRole('alert').filter({ hasText: 'This login link is unknown, expired or already used' }).waitFor();
  assert.equal(problems.list, []);
  await ctx.close();
});

test.run();
