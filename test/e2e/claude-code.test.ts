import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { query, waitForValue } from '../support/ledger.js';

// Claude Code (`claude -p`, unmodified, from node_modules) completing one turn through the
// gateway's /v1/messages: against the sandbox, and against an OpenAI-compatible provider.
let gw: GatewayProcess;
let mock: MockProvider;
let key: string;
const CLAUDE = join(ROOT, 'node_modules', '.bin', 'claude');
const LLAMA = 'llama-3.3-70b-instruct';

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq-platform' } } });
  ({ key } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});

interface Run { code: number | null; stdout: string; stderr: string }

/** `claude -p PROMPT --model MODEL` with a fresh home, no telemetry or other traffic, bounded in time. */
function claude(model: string, auth: Record<string, string>): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), 'gw-claude-'));
  const env = {
    PATH: process.env.PATH ?? '', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), ANTHROPIC_BASE_URL: gw.url, ...auth,
    DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
    // Its side requests (titles, summaries) go to a small model: point it at the catalog too.
    ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
  };
  return new Promise((resolve) => {
    execFile(CLAUDE, ['-p', 'say hi', '--model', model], { env, timeout: 90_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      rmSync(home, { recursive: true, force: true });
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

function rowsFor(model: string): any[] {
  return query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE model = ?').all(model) as any[]);
}

test('claude -p completes one turn on sandbox/echo with ANTHROPIC_API_KEY (x-api-key)', async () => {
  const run = await claude('sandbox/echo', { ANTHROPIC_API_KEY: key });
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  // The echo model repeats the last user turn: Claude Code's prompt reached it through the translation.
  assert.match(run.stdout, 'echo: ');
  assert.match(run.stdout, 'say hi');
  const rows = await waitForValue(() => rowsFor('sandbox/echo').length > 0 && rowsFor('sandbox/echo'), 5_000, 'the ledger row');
  assert.ok(rows.every((r) => r.status === 200 && r.endpoint === 'chat'));
  assert.ok(rows.some((r) => r.streamed === 1), 'Claude Code streams');
});

test('claude -p completes one turn on an OpenAI-compatible provider with ANTHROPIC_AUTH_TOKEN (Bearer)', async () => {
  mock.setDefault({ kind: 'stream', chunks: 3 });
  const run = await claude(LLAMA, { ANTHROPIC_AUTH_TOKEN: key });
  assert.is(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, 'tok0 tok1 tok2');
  const up = mock.requests.find((r) => r.body.stream === true)!;
  assert.ok(up, 'a streamed chat request reached the provider');
  assert.is(up.body.messages[0].role, 'system', "Claude Code's system prompt is the first chat message");
  assert.ok(up.body.tools.length > 0 && up.body.tools.every((t: any) => t.type === 'function'), 'its tools became chat function tools');
  for (const f of ['thinking', 'context_management', 'output_config', 'metadata']) assert.not.ok(f in up.body, `${f} is not forwarded`);
  const rows = await waitForValue(() => rowsFor(LLAMA).length > 0 && rowsFor(LLAMA), 5_000, 'the ledger row');
  assert.ok(rows.every((r) => r.status === 200 && r.provider === 'groq' && r.cost_micros > 0), 'billed as a chat request on groq');
});

test.run();
