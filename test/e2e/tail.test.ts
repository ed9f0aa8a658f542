import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { MAIN_JS, query } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';
import { IST_OFFSET_MS } from '../../src/lib/ist.js';

const run = promisify(execFile);
let gw: GatewayProcess;
let mock: MockProvider;
let a: { key: string; keyId: string };
let b: { key: string; keyId: string };
const tails: ChildProcess[] = [];

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ limits: { gatewayRpm: 100_000 }, providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
  const org = await gw.cli('org', 'create', 'tailing', '--credit', '100');
  for (const name of ['a', 'b']) {
    const k = await gw.cli('key', 'create', '--org', org.id, '--name', name);
    if (name === 'a') a = { key: k.key, keyId: k.id };
    else b = { key: k.key, keyId: k.id };
  }
});
test.after(async () => {
  for (const t of tails) if (t.exitCode === null && t.signalCode === null) t.kill('SIGKILL');
  await gw.cleanup();
  await mock.close();
});

const env = { ...process.env, GW_CONFIG: '' };

/** Starts `gw --json tail` following the ledger; lines arrive in `lines`, and `next(n)` waits for that many. */
function follow(...args: string[]) {
  const proc = spawn(process.execPath, [MAIN_JS, '--config', gw.configPath, '--json', 'tail', '--interval', '50', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  tails.push(proc);
  const lines: string[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d) => { stderr += d; });
  const waiters: (() => void)[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc, lines, exited,
    /** Resolves when at least n lines have been printed (on the line event, not by polling). */
    next(n: number, timeoutMs = 5_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`gw tail printed ${lines.length} of ${n} lines; stderr: ${stderr}`)), timeoutMs);
        const check = () => {
          if (lines.length >= n) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

async function chat(key: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody(extra) });
  assert.is(r.status, 200);
  await r.arrayBuffer();
  return r.headers.get('x-gw-request-id')!;
}

test('gw tail --json prints the last rows, then each new row as a JSON line, and exits 0 on SIGTERM', async () => {
  const first = await chat(a.key);
  await waitFor(() => query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) FROM usage').pluck().get()) === 1, 5_000, 'the first row');
  const t = follow();
  await t.next(1);
  assert.is(JSON.parse(t.lines[0]).request_id, first, 'the existing row first');
  const ids = [await chat(a.key), await chat(b.key, { stream: true }), await chat(a.key, { model: 'sandbox/echo' })];
  await t.next(4);
  const rows = t.lines.slice(1).map((l) => JSON.parse(l));
  assert.equal(rows.map((r) => r.request_id), ids);
  assert.equal(rows.map((r) => [r.key_id, r.model, r.streamed, r.billable]), [
    [a.keyId, 'llama-3.3-70b-instruct', 0, 1], [b.keyId, 'llama-3.3-70b-instruct', 1, 1], [a.keyId, 'sandbox/echo', 0, 1],
  ]);
  assert.is(rows[0].cost_micros, 1_059);
  t.proc.kill('SIGTERM');
  assert.is(await t.exited, 0);
});

test('gw tail filters by key and model, and --no-follow -n N prints the last N matching rows and exits', async () => {
  const t = follow('--key', b.keyId);
  await t.next(1); // b's one row so far
  await chat(a.key);
  const mine = await chat(b.key);
  await t.next(2);
  assert.is(JSON.parse(t.lines[1]).request_id, mine, 'a\'s request was skipped');
  t.proc.kill('SIGTERM');
  assert.is(await t.exited, 0);

  const { stdout } = await run(process.execPath, [MAIN_JS, '--config', gw.configPath, '--json', 'tail', '--model', 'llama-3.3-70b-instruct', '-n', '2', '--no-follow'], { env });
  const last = stdout.trim().split('\n').map((l) => JSON.parse(l));
  const expected = query(gw.dbPath, (db) => db.prepare("SELECT id FROM usage WHERE model = 'llama-3.3-70b-instruct' ORDER BY id DESC LIMIT 2").pluck().all() as number[]);
  assert.equal(last.map((r) => r.id), expected.reverse());
});

test('the human format has a header and shows the time in IST and the cost in rupees', async () => {
  const id = await chat(a.key);
  await waitFor(() => query(gw.dbPath, (db) => db.prepare('SELECT 1 FROM usage WHERE request_id = ?').get(id)), 5_000, 'the row');
  const { stdout } = await run(process.execPath, [MAIN_JS, '--config', gw.configPath, 'tail', '--key', a.keyId, '-n', '1', '--no-follow'], { env });
  const [header, line] = stdout.trimEnd().split('\n');
  assert.match(header, /time\(IST\)/);
  const row = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ?').get(id) as any);
  const ist = new Date(row.at + IST_OFFSET_MS).toISOString().slice(11, 23);
  assert.ok(line.startsWith(ist), `${line} starts with ${ist}`);
  assert.ok(line.includes(id) && line.includes('groq') && line.includes('0.00'), line);
  assert.match(line, /\$----$/, 'billable, not streamed, not BYOK, usage reported and not clamped');
});

// Regression: the follow loop started from a high-water mark read after the last rows, so rows
// committed between the two reads were never printed.
test('following under load, gw tail prints every row exactly once and in order', async () => {
  let stop = false;
  const load = Promise.all(Array.from({ length: 8 }, async () => {
    while (!stop) await chat(a.key, { model: 'sandbox/echo' });
  }));
  const t = follow('-n', '5');
  try {
    await waitFor(() => (query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) FROM usage').pluck().get()) as number) > 100, 10_000, 'load');
    await t.next(200, 10_000);
  } finally {
    stop = true;
    await load;
  }
  const maxId = await (async () => {
    let id = 0;
    await waitFor(() => {
      const now = query(gw.dbPath, (db) => db.prepare('SELECT MAX(id) FROM usage').pluck().get() as number);
      const same = now === id;
      id = now;
      return same;
    }, 5_000, 'the ledger to settle');
    return id;
  })();
  await waitFor(() => t.lines.length > 0 && JSON.parse(t.lines.at(-1)!).id === maxId, 5_000, 'tail to catch up');
  const ids = t.lines.map((l) => JSON.parse(l).id as number);
  const gaps = ids.slice(1).filter((id, i) => id !== ids[i] + 1);
  assert.equal(gaps, [], 'consecutive ids: nothing skipped, nothing repeated');
  t.proc.kill('SIGTERM');
  assert.is(await t.exited, 0);
});

test.run();
