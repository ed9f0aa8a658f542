import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/config/load.js';
import { loadCatalog } from '../../src/catalog/load.js';
import type { Route } from '../../src/catalog/catalog.js';
import { costMicros, maxCostMicros } from '../../src/billing/cost.js';
import { clampUsage } from '../../src/billing/usage-bounds.js';
import type { TokenUsage } from '../../src/lib/usage-scan.js';

const usage = (promptTokens: number, completionTokens: number, cachedTokens = 0, cacheWriteTokens = 0, reasoningTokens = 0): TokenUsage =>
  ({ promptTokens, completionTokens, cachedTokens, cacheWriteTokens, reasoningTokens });

const catalog = loadCatalog(loadConfig({ env: {} }), {});
const route = (model: string): Route => catalog.models.get(model)!.routes[0];

/** A route priced by hand (₹ per 1M tokens = micro-rupees per token), as load.ts derives them. */
function priced(input: number, output: number, cachedInput?: number, cacheWrite?: number): Route {
  return {
    ...route('gpt-4o-mini'), priceInr: { input, output, cachedInput, cacheWrite }, inputMicrosPerUnit: input, outputMicrosPerUnit: output,
    cachedInputMicrosPerUnit: cachedInput ?? input, cacheWriteMicrosPerUnit: cacheWrite ?? input,
  };
}

test('the catalog prices gpt-4o-mini\'s and gpt-4o\'s cached input at half their input (OpenAI\'s rate, same ₹ per $)', () => {
  const mini = route('gpt-4o-mini');
  assert.equal([mini.inputMicrosPerUnit, mini.cachedInputMicrosPerUnit, mini.cacheWriteMicrosPerUnit, mini.outputMicrosPerUnit], [13.2, 6.6, 13.2, 52.8]);
  const big = route('gpt-4o');
  assert.equal([big.inputMicrosPerUnit, big.cachedInputMicrosPerUnit], [220, 110]);
});

test('a model without cache prices bills cached reads and writes at its input price', () => {
  const groq = catalog.models.get('llama-3.3-70b-instruct')!.routes.find((r) => r.provider.id === 'groq')!;
  assert.is(groq.cachedInputMicrosPerUnit, groq.inputMicrosPerUnit);
  assert.is(groq.cacheWriteMicrosPerUnit, groq.inputMicrosPerUnit);
  assert.is(costMicros(groq, usage(1_000, 10, 600, 100)), costMicros(groq, usage(1_000, 10)));
});

test('OpenAI convention: 2,000 prompt tokens of which 1,500 cached, 300 completion of which 120 reasoning, on gpt-4o-mini', () => {
  // 500 × 13.2 + 1,500 × 6.6 + 300 × 52.8 = 6,600 + 9,900 + 15,840. Reasoning is inside the 300, never added again.
  assert.is(costMicros(route('gpt-4o-mini'), usage(2_000, 300, 1_500, 0, 120)), 32_340);
  // Without the discount it would be 42,240; billing the cached tokens on top of the prompt, 52,140.
  assert.is(costMicros(route('gpt-4o-mini'), usage(2_000, 300)), 42_240);
});

test('Anthropic convention as the adapter maps it: input 100 + cache_read 1,000 + cache_creation 500 → prompt 1,600', () => {
  // Claude Sonnet prices at ₹88/$: input $3 → 264, output $15 → 1,320, cache read $0.30 → 26.4, 5-minute cache write $3.75 → 330.
  const claude = priced(264, 1_320, 26.4, 330);
  // 100 × 264 + 1,000 × 26.4 + 500 × 330 + 200 × 1,320 = 26,400 + 26,400 + 165,000 + 264,000.
  assert.is(costMicros(claude, usage(1_600, 200, 1_000, 500)), 481_800);
});

test('Gemini convention: promptTokenCount 1,000 includes cachedContentTokenCount 600; thoughts are part of the output', () => {
  // candidatesTokenCount 150 + thoughtsTokenCount 250 → completion 400, reasoning 250.
  const flash = priced(26.4, 220, 2.64);
  // 400 × 26.4 + 600 × 2.64 + 400 × 220 = 10,560 + 1,584 + 88,000.
  assert.is(costMicros(flash, usage(1_000, 400, 600, 0, 250)), 100_144);
});

test('the sum is rounded once, half up, not per class', () => {
  // 1 × 0.3 + 1 × 0.3 = 0.6 → 1; rounding each class first would give 0.
  assert.is(costMicros(priced(0.3, 0, 0.3), usage(2, 0, 1)), 1);
});

test('cached reads beyond the prompt (a provider bug) never make the uncached input negative, and the usage is marked clamped', () => {
  const mini = route('gpt-4o-mini');
  // Taken as is: all 1,000 prompt tokens cached, none written, never 1,000 − 1,500 uncached.
  assert.is(costMicros(mini, usage(1_000, 0, 1_500)), 6_600);
  // 800 cached × 6.6 + the 200 left of the prompt as cache writes, at the input price × 13.2.
  assert.is(costMicros(mini, usage(1_000, 0, 800, 700)), 7_920);
  const clamped = clampUsage(usage(1_000, 0, 1_500), { endpoint: 'chat', request: { payload: { messages: [] } }, bytes: 10_000, maxTokens: null, contextLength: 128_000 });
  assert.equal(clamped, usage(1_000, 0, 1_000));
  assert.is(costMicros(mini, clamped!), 6_600);
});

test('the hold before a request runs covers a prompt written wholly to the cache, where writes cost more than input', () => {
  const claude = priced(264, 1_320, 26.4, 330);
  // 4,000 body bytes → 1,000 prompt tokens, 200 output tokens.
  const hold = maxCostMicros([{ route: claude, byok: false }], 4_000, 200, 4_096);
  assert.is(hold, 1_000 * 330 + 200 * 1_320);
  assert.ok(hold >= costMicros(claude, usage(1_000, 200, 0, 1_000)));
  assert.is(maxCostMicros([{ route: route('gpt-4o-mini'), byok: false }], 4_000, 200, 4_096), Math.ceil(1_000 * 13.2 + 200 * 52.8),
    'a cheaper cached price does not lower the hold');
});

test.run();
