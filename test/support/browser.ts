import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT, type GatewayProcess } from './gateway-process.js';

const CHROMIUM = '/usr/bin/chromium';
/** Where tests save page screenshots for a person to look at (not committed). */
export const SHOTS = join(ROOT, 'test-output', 'screenshots');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Debian's Chromium, headless, driven by playwright-core. Installed by scripts/install-browser.sh
 * when missing (CI runs it first); a machine where that fails fails the test, it never skips.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) execFileSync('sh', [join(ROOT, 'scripts', 'install-browser.sh')], { stdio: 'inherit' });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--disable-quic'],
  });
}

/** What went wrong inside a page: uncaught errors, console errors and Content-Security-Policy refusals. */
export interface PageProblems {
  list: string[];
}

/** A new page that records its problems; tests assert the list stays empty. */
export async function watchedPage(ctx: BrowserContext): Promise<{ page: Page; problems: PageProblems }> {
  const page = await ctx.newPage();
  const problems: PageProblems = { list: [] };
  page.on('pageerror', (e) => problems.list.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // A refused API call logs "Failed to load resource" for its 4xx; the page shows those itself.
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) {
      problems.list.push(`console: ${m.text()} (on ${page.url()})`);
    }
  });
  return { page, problems };
}

/** A browser context signed in as email through a one-time login link, as an operator hands one out; on the overview. */
export async function signedIn(browser: Browser, gw: GatewayProcess, email: string, opts: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}) {
  const ctx = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 860 }, colorScheme: opts.colorScheme ?? 'light' });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
  const { page, problems } = await watchedPage(ctx);
  const { url } = await gw.cli('login-link', '--email', email, '--base-url', gw.url);
  await page.goto(url);
  await page.waitForURL(gw.url + '/');
  await page.getByRole('heading', { level: 1 }).waitFor();
  return { ctx, page, problems };
}

/** Skips the one-time signup survey when the account has not answered it (it opens just after the page draws). */
export async function skipSurvey(page: Page): Promise<void> {
  const me = await (await page.request.get(new URL('/me', page.url()).href)).json() as { attribution_pending?: boolean };
  if (!me.attribution_pending) return;
  const dialog = page.getByRole('dialog', { name: 'How did you hear about us?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Skip' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

export interface AxeViolation { id: string; impact: string; help: string; nodes: { target: string[] }[] }

/**
 * Runs axe-core in the page (through the debugging protocol, so the page's own CSP stays on)
 * and returns the serious and critical violations.
 */
export async function axeSerious(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  // A string, evaluated in the page: the tests are compiled without the DOM's types.
  const result = await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target })) })))`) as AxeViolation[];
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A readable line per violation, for an assertion message. */
export const describeViolations = (vs: AxeViolation[]): string => vs.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');

/** Saves a full-page screenshot under test-output/screenshots. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The theme the page is showing (the data-theme of <html>). */
export const themeOf = (page: Page): Promise<string> => page.evaluate('document.documentElement.dataset.theme') as Promise<string>;
