// Anthropic's usage convention → the gateway's canonical one, with real numbers. Anthropic's
// input_tokens leaves out cache reads and writes; OpenAI's prompt_tokens includes them. Counting
// them once, here, is what keeps billing from dropping or doubling the cached part.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scanUsage } from '../../src/lib/usage-scan.js';
import { toChatCompletion } from '../../src/providers/anthropic/answer.js';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream.js';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { canonicalUsage, canonicalUsageJson, emptyCounts, mergeCompactUsage, mergeUsage, type UsageCounts } from '../../src/providers/anthropic/usage.js';
import { mutate } from '../support/json-mutate.js';
import { rng } from '../support/seeded-random.js';
import { FIXED_NOW, fixtureBytes, sseData } from './anthropic-fixtures.js';

test('100,000 tokens read from the cache, 248 written, 50 not cached: prompt_tokens 100,298 with the cached parts named', () => {
  const c = emptyCounts();
  mergeUsage(c, { input_tokens: 50, cache_creation_input_tokens: 248, cache_read_input_tokens: 100_000, output_tokens: 503 });
  assert.equal(canonicalUsage(c), {
    prompt_tokens: 100_298, completion_tokens: 503, total_tokens: 100_801,
    prompt_tokens_details: { cached_tokens: 100_000, cache_write_tokens: 248 },
  });
});

test('a request with no cache fields (older models, Batches) counts input_tokens alone', () => {
  const c = emptyCounts();
  mergeUsage(c, { input_tokens: 25, output_tokens: 15 });
  assert.equal(canonicalUsage(c).prompt_tokens, 25);
  mergeUsage(c, { input_tokens: 25, cache_read_input_tokens: null, output_tokens: 16 });
  assert.equal([canonicalUsage(c).prompt_tokens, canonicalUsage(c).completion_tokens], [25, 16], 'null counts change nothing');
});

test('in a stream, message_delta\'s output_tokens is the running total, not an increment', () => {
  const c = emptyCounts();
  mergeUsage(c, { input_tokens: 12, cache_creation_input_tokens: 1500, cache_read_input_tokens: 0, output_tokens: 1 });
  mergeUsage(c, { output_tokens: 60 });
  mergeUsage(c, { output_tokens: 120 });
  assert.equal([canonicalUsage(c).prompt_tokens, canonicalUsage(c).completion_tokens], [1512, 120]);
});

test('the gateway\'s usage scan reads the translated answer\'s and stream\'s counts, cache included', () => {
  const answer = Buffer.from(toChatCompletion(fixtureBytes('answer-cached.message.json'), 'm', FIXED_NOW));
  assert.equal(scanUsage(answer), { promptTokens: 100_298, completionTokens: 503, cachedTokens: 100_000, cacheWriteTokens: 248, reasoningTokens: 0 });
  const t = new AnthropicStreamTranslator('m', FIXED_NOW);
  const out = t.push(fixtureBytes('stream-tool.sse')).toString() + t.end().toString();
  const usageChunk = sseData(out).find((d: any) => d !== '[DONE]' && d.usage !== undefined) as any;
  assert.equal(scanUsage(Buffer.from(JSON.stringify(usageChunk))), { promptTokens: 849 + 2048, completionTokens: 47, cachedTokens: 2048,
    cacheWriteTokens: 0, reasoningTokens: 0 });
});

test('the usage written as text is JSON.stringify of the usage object', () => {
  for (const counts of [emptyCounts(), { input: 21, output: 9, cacheRead: 1800, cacheWrite: 200 }, { input: 1e9, output: 0, cacheRead: 0, cacheWrite: 7 }]) {
    assert.is(canonicalUsageJson(counts), JSON.stringify(canonicalUsage(counts)));
  }
});

test('the counts a translated answer hands the data plane are those its usage scan reads from the answer, whatever the usage held', () => {
  const odd = [undefined, null, -1, 1.5, 2 ** 53, 1e21, '7', Number.NaN, 0, 3, 4096, 2 ** 31];
  let seed = 17;
  const pick = <T>(xs: T[]): T => xs[(seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % xs.length];
  for (let i = 0; i < 2_000; i++) {
    const usage = i % 7 === 0 ? pick([undefined, null, 'none', []]) : {
      input_tokens: pick(odd), output_tokens: pick(odd), cache_read_input_tokens: pick(odd), cache_creation_input_tokens: pick(odd),
    };
    const msg = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: `"usage": {"prompt_tokens": ${i}}` }],
      stop_reason: 'end_turn', usage };
    const out = anthropicAdapter.readAnswer!('chat', Buffer.from(JSON.stringify(msg)), 'application/json', '');
    assert.equal(out.usage, scanUsage(Buffer.from(out.body)), JSON.stringify(usage));
  }
});

/** What the parse reads from `text` into counts that start as `start`, or null when it is not JSON. */
function parsedInto(start: UsageCounts, text: string): UsageCounts | null {
  let u: unknown;
  try {
    u = JSON.parse(text);
  } catch {
    return null;
  }
  const c = { ...start };
  mergeUsage(c, u as never);
  return c;
}

test('a usage read in place as Anthropic writes it folds in what its parse would, and leaves anything else to the parse', () => {
  const r = rng(2026_12_03);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  // Mostly counts as Anthropic writes them, now and then one it does not (or JSON does not allow).
  const plain = ['0', '7', '4096', '999999999999999', 'null'];
  const odd = ['9007199254740991', '9007199254740993', '1e3', '-1', '01', '1.5', '"7"', ' 3', '0x1'];
  const count = (): string => (r() < 0.93 ? pick(plain) : pick(odd));
  const written = (): string => {
    const members = [`"input_tokens":${count()}`, `"cache_creation_input_tokens":${count()}`,
      `"cache_read_input_tokens":${count()}`];
    if (r() < 0.5) members.push(`"cache_creation":{"ephemeral_5m_input_tokens":${count()},"ephemeral_1h_input_tokens":${count()}}`);
    members.push(`"output_tokens":${count()}`);
    if (r() < 0.5) members.push(`"service_tier":${pick(['"standard"', '"priority"', '"batch"', '"Standard"', 'null', '""'])}`);
    if (r() < 0.1) members.push(pick(['"server_tool_use":{"web_search_requests":1}', '"input_tokens":5']));
    if (r() < 0.1) members.reverse();
    return `{${members.join(',')}}`;
  };
  const snippets = ['"input_tokens":', 'null', '0', '}', ',', '\\u0030', ' ', '"output_tokens":1'];
  let read = 0;
  let left = 0;
  for (let i = 0; i < 20_000; i++) {
    const base = written();
    const text = i % 3 === 0 ? mutate(Buffer.from(base), r, snippets).toString('latin1') : base;
    const start = { input: 11, output: 12, cacheRead: 13, cacheWrite: 14 };
    const c = { ...start };
    if (mergeCompactUsage(c, text)) {
      read++;
      assert.equal(c, parsedInto(start, text), text);
    } else {
      left++;
      assert.equal(c, start, `counts untouched when left to the parse: ${text}`);
    }
  }
  assert.ok(read > 2_000 && left > 2_000, `both ways taken (${read} read in place, ${left} left)`);
});

test('the usage of a message_start and an answer as Anthropic sends them today is read in place', () => {
  const c = emptyCounts();
  assert.ok(mergeCompactUsage(c, '{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":1800,' +
    '"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":2,"service_tier":"standard"}'));
  assert.equal(c, { input: 472, output: 2, cacheRead: 1800, cacheWrite: 0 });
  assert.ok(mergeCompactUsage(c, '{"input_tokens":21,"cache_creation_input_tokens":null,"cache_read_input_tokens":null,"output_tokens":9}'));
  assert.equal(c, { input: 21, output: 9, cacheRead: 1800, cacheWrite: 0 }, 'null counts change nothing');
});

test.run();
