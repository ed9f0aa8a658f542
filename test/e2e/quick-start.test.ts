import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runMain, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { waitFor } from '../support/wait.js';

// Issue 14.15: the README's quick start, as written, works on a fresh install: the first start
// says what to do next, and the SDK snippet (read from README.md) runs against a real gateway.
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const QUICK_START = README.slice(README.indexOf('## Quick start'), README.indexOf('\n## ', README.indexOf('## Quick start') + 1));
let gw: GatewayProcess;
let dir: string;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-quick-'));
  gw = await startGateway();
});
test.after(async () => {
  await gw.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a logged `npx gw …` command line as the CLI (the paths in it have no spaces). */
async function npxGw(line: string): Promise<string> {
  assert.ok(line.startsWith('npx gw '), line);
  const run = await runMain(['--json', ...line.slice('npx gw '.length).split(' ')]);
  assert.is(run.code, 0, run.stderr);
  return run.stdout;
}

let key = '';

test('the first start on an empty database logs the next steps, and they work as printed', async () => {
  // Logged right after "listening", which startGateway waits for; the next line may trail it.
  const line = await waitFor(() => gw.lines.find((l) => l.includes('first start: no organisations yet')), 5_000, 'the first-start message');
  const steps = JSON.parse(line as string);
  assert.is(steps.api, `${gw.url}/v1`);
  assert.is(steps.dashboard, `${gw.url}/`);
  assert.match(steps.msg, `The dashboard is at ${gw.url}/`);
  // The sign-in command prints a link that signs a browser in and lands on the dashboard.
  const link = JSON.parse(await npxGw(steps.sign_in));
  const landed = await fetch(link.url, { redirect: 'manual' });
  assert.is(landed.status, 302);
  assert.is(landed.headers.get('location'), '/');
  assert.match(landed.headers.get('set-cookie') ?? '', /^gw_session=/);
  // The commands name this database (not the default one), so they reach this gateway.
  assert.match(steps.create_org, `--db ${gw.dbPath}`);
  const org = JSON.parse(await npxGw(steps.create_org));
  const created = JSON.parse(await npxGw(steps.create_key.replace('<org id>', org.id)));
  assert.match(created.key, /^gw-/);
  key = created.key;
  // The README shows the same commands (without --db: its gateway uses the default database).
  for (const cmd of [steps.create_org, steps.create_key]) assert.match(QUICK_START, cmd.replace(` --db ${gw.dbPath}`, ''));
});

test('the README\'s SDK snippet, saved as an .mjs file, runs against the gateway with the official openai package', async () => {
  const snippet = /```js\n([\s\S]*?)```/.exec(QUICK_START)?.[1];
  assert.ok(snippet, 'a js block in the quick start');
  assert.match(snippet, "baseURL: 'http://127.0.0.1:8080/v1'");
  assert.match(QUICK_START, 'export GW_KEY=');
  assert.match(QUICK_START, 'quickstart.mjs');
  const file = join(dir, 'quickstart.mjs');
  writeFileSync(file, snippet.replace('http://127.0.0.1:8080', gw.url));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules')); // as after `npm install openai`
  const out = await new Promise<{ err: Error | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [file], { cwd: dir, env: { ...process.env, GW_KEY: key }, timeout: 30_000 }, (err, stdout, stderr) => resolve({ err, stdout, stderr }));
  });
  assert.is(out.err, null, `the snippet failed:\n${out.stderr}`);
  assert.match(out.stdout, 'Write a haiku about Bengaluru traffic', 'the chat answer');
  assert.match(out.stdout, /^sandbox\/echo \{/m, 'the model list with pricing');
  assert.match(out.stdout, 'hello', 'the streamed answer');
});

test('a database that has organisations starts without the first-start message', async () => {
  await gw.stop();
  const before = gw.lines.length;
  await gw.restart();
  await gw.cli('org', 'create', 'later'); // a round trip, by which the start-up lines are in
  const since = gw.lines.slice(before);
  assert.ok(since.some((l) => l.includes('"msg":"listening"')));
  assert.not.ok(since.some((l) => l.includes('first start')), since.join('\n'));
});

test.run();
