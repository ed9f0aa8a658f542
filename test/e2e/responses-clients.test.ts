import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import { ROOT, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, streamText as mockStreamText, type MockProvider } from '../support/mock-provider.js';

// The clients people point at a gateway that speak the Responses API, unmodified: the AI SDK's
// OpenAI provider (its default model API is Responses), LangChain with useResponsesApi, and the
// Codex CLI, against the sandbox and an OpenAI-compatible mock provider.
let gw: GatewayProcess;
let mock: MockProvider;
let key: string;
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
test.before.each(() => mock.reset());

/** Requests that reached the gateway's Responses route, read from the ledger-independent mock. */
function chatRequests(): any[] {
  return mock.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);
}

test('@ai-sdk/openai generateText (its default Responses API) answers through the gateway', async () => {
  const openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: key });
  const r = await generateText({ model: openai('sandbox/echo'), prompt: 'hello from the AI SDK' });
  assert.is(r.text, 'echo: hello from the AI SDK');
  assert.ok((r.usage.inputTokens ?? 0) > 0);
  assert.is(r.finishReason, 'stop');
  assert.match(r.response.id, /^resp_/);
});

test('@ai-sdk/openai streamText streams the text from a provider and reports usage', async () => {
  mock.setDefault({ kind: 'stream', chunks: 4 });
  const openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: key });
  const r = streamText({ model: openai(LLAMA), prompt: 'count', system: 'Count.' });
  let text = '';
  for await (const t of r.textStream) text += t;
  assert.is(text, mockStreamText(4));
  const usage = await r.usage;
  assert.equal([usage.inputTokens, usage.outputTokens], [11, 4]);
  assert.equal(chatRequests()[0].messages, [{ role: 'system', content: 'Count.' }, { role: 'user', content: 'count' }]);
});

test('LangChain ChatOpenAI with useResponsesApi invokes through the gateway', async () => {
  const model = new ChatOpenAI({ model: LLAMA, useResponsesApi: true, apiKey: key, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0 });
  const msg = await model.invoke('hello from LangChain');
  assert.is(msg.text, 'mock reply');
  assert.equal(chatRequests()[0].messages.at(-1), { role: 'user', content: 'hello from LangChain' });
  assert.is(msg.usage_metadata?.input_tokens, 11);
});

/** Runs `codex exec PROMPT` with the gateway as its Responses provider, in a fresh CODEX_HOME. */
async function codex(prompt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'gw-codex-'));
  try {
    return await new Promise((resolve) => {
      const child = execFile(join(ROOT, 'node_modules', '.bin', 'codex'), [
        'exec', '--skip-git-repo-check', '-s', 'read-only',
        '-c', 'model_providers.gw.name="gw"', '-c', `model_providers.gw.base_url="${gw.url}/v1"`,
        '-c', 'model_providers.gw.env_key="GW_API_KEY"', '-c', 'model_providers.gw.wire_api="responses"',
        '-c', 'model_provider="gw"', '-m', LLAMA, prompt,
      ], { cwd: home, env: { ...process.env, CODEX_HOME: home, GW_API_KEY: key, OPENAI_API_KEY: '' }, timeout: 90_000, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr }));
      // codex exec reads more prompt from a stdin that is not a terminal until it ends.
      child.stdin!.end();
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

test('the Codex CLI completes a turn through the gateway as a custom Responses provider', async () => {
  const out = await codex('Say hello to the gateway');
  assert.is(out.code, 0, out.stderr.slice(-2000));
  // Codex streams: the mock's default stream says tok0 tok1 tok2.
  assert.is(out.stdout.trim(), mockStreamText(3).trim(), 'the agent\'s final message is the provider\'s answer');
  const sent = chatRequests();
  assert.is(sent.length, 1, 'one turn, one upstream call');
  assert.is(sent[0].stream, true);
  assert.equal(sent[0].messages.at(-1), { role: 'user', content: 'Say hello to the gateway' });
  assert.is(sent[0].messages[0].role, 'system', "Codex's developer instructions arrive as a system message");
  const names = (sent[0].tools ?? []).map((t: any) => t.function.name);
  assert.ok(names.includes('exec_command'), `Codex's function tools reach the provider: ${names.join(', ')}`);
});

test('the Codex CLI runs a tool the model called (a streamed function_call) and sends its output back', async () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  mock.enqueue({ kind: 'parts', contentType: 'text/event-stream', intervalMs: 1, parts: [
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_x1', type: 'function', function: { name: 'exec_command', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ cmd: 'echo gw-tool-ran' }) } }] }), chunk({}, 'tool_calls'),
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}\n\n',
    'data: [DONE]\n\n'] });
  const out = await codex('Run echo');
  assert.is(out.code, 0, out.stderr.slice(-2000));
  const sent = chatRequests();
  assert.is(sent.length, 2, 'the tool call, then the turn with its output');
  const [call, result] = sent[1].messages.slice(-2);
  assert.equal(call.tool_calls, [{ id: 'call_x1', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"echo gw-tool-ran"}' } }]);
  assert.is(result.role, 'tool');
  assert.is(result.tool_call_id, 'call_x1');
  assert.ok(result.content.includes('gw-tool-ran'), result.content);
});

test.run();
