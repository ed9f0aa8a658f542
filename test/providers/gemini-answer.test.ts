import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyUpstreamError } from '../../src/dataplane/upstream-error.js';
import { RouteFailure } from '../../src/dataplane/route-failure.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { scanUsage } from '../../src/lib/usage-scan.js';
import { geminiAdapter } from '../../src/providers/gemini/adapter.js';
import { fixture } from './gemini-fixtures.js';

const read = (doc: unknown, model = 'gemini-2.5-flash') => {
  const out = geminiAdapter.readAnswer!('chat', Buffer.from(JSON.stringify(doc)), 'application/json; charset=UTF-8', '', model);
  assert.is(out.contentType, 'application/json');
  return { text: String(out.body), json: JSON.parse(String(out.body)) };
};
const candidate = (finishReason: string, parts: unknown[] = [{ text: 'x' }]) =>
  ({ candidates: [{ content: { parts, role: 'model' }, finishReason, index: 0 }] });

test('a Gemini answer becomes a chat.completion: thoughts left out of the text, usage in the canonical convention', () => {
  const f = fixture('answer-text.json');
  const { json } = read(f.gemini);
  assert.type(json.created, 'number');
  delete json.created;
  assert.equal(json, f.openai);
});

test('the data plane\'s usage scan reads the translated answer\'s counts: cached tokens inside prompt_tokens, thoughts inside completion_tokens', () => {
  const { text } = read(fixture('answer-text.json').gemini);
  assert.equal(scanUsage(Buffer.from(text)), { promptTokens: 2310, completionTokens: 87 + 156, cachedTokens: 2048, cacheWriteTokens: 0,
    reasoningTokens: 156 });
});

test('function calls become tool_calls with generated ids and JSON-string arguments, and finish_reason tool_calls', () => {
  const f = fixture('answer-function-call.json');
  const { json } = read(f.gemini);
  const msg = json.choices[0].message;
  assert.is(msg.content, null);
  assert.equal(msg.tool_calls.map((c: any) => [c.function.name, c.function.arguments]), f.calls);
  assert.ok(msg.tool_calls.every((c: any) => c.type === 'function' && /^call_[\w-]{16}$/.test(c.id)));
  assert.is(new Set(msg.tool_calls.map((c: any) => c.id)).size, 2, 'ids are distinct');
  assert.is(json.choices[0].finish_reason, 'tool_calls');
  assert.equal(json.usage, f.usage);
});

test('a prompt blocked by safety (no candidates) becomes one choice with empty content, finish_reason content_filter and the reason in refusal', () => {
  const { json } = read(fixture('answer-blocked.json').gemini);
  assert.equal(json.choices, [{
    index: 0, message: { role: 'assistant', content: '', refusal: 'Gemini blocked the prompt (promptFeedback.blockReason SAFETY)' },
    logprobs: null, finish_reason: 'content_filter',
  }]);
  assert.equal([json.usage.prompt_tokens, json.usage.completion_tokens], [8, 0]);
});

test('finish reasons: MAX_TOKENS is length; SAFETY, RECITATION, PROHIBITED_CONTENT, BLOCKLIST and SPII are content_filter; STOP is stop', () => {
  const reason = (r: string) => read(candidate(r)).json.choices[0].finish_reason;
  assert.is(reason('STOP'), 'stop');
  assert.is(reason('MAX_TOKENS'), 'length');
  for (const r of ['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII']) assert.is(reason(r), 'content_filter', r);
});

test('n candidates become n choices in Gemini\'s order', () => {
  const doc = { candidates: [
    { content: { parts: [{ text: 'one' }], role: 'model' }, finishReason: 'STOP', index: 0 },
    { content: { parts: [{ text: 'two' }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 1 },
  ] };
  const { json } = read(doc);
  assert.equal(json.choices.map((c: any) => [c.index, c.message.content, c.finish_reason]), [[0, 'one', 'stop'], [1, 'two', 'length']]);
});

test('Gemini error bodies: 400 INVALID_ARGUMENT returns to the caller with Gemini\'s message; 429 RESOURCE_EXHAUSTED, 500 and 503 fail over', () => {
  const e = fixture('errors.json');
  const body = (x: any) => Buffer.from(JSON.stringify(x.body));
  const invalid = classifyUpstreamError(400, body(e.invalidArgument), false, 'gm-key');
  assert.ok(isGatewayError(invalid));
  assert.is(invalid.status, 400);
  assert.match(invalid.message, /max_output_tokens must be positive/);
  const limited = classifyUpstreamError(429, body(e.resourceExhausted), false, 'gm-key');
  assert.ok(limited instanceof RouteFailure);
  assert.is((limited as RouteFailure).code, 'upstream_rate_limited');
  for (const x of [e.internal, e.unavailable]) assert.ok(classifyUpstreamError(x.status, body(x), false, 'gm-key') instanceof RouteFailure);
});

test('an answer that is not JSON is passed on as it came (the gateway then estimates its usage)', () => {
  const out = geminiAdapter.readAnswer!('chat', Buffer.from('<html>oops</html>'), 'text/html', '', 'gemini-2.5-flash');
  assert.equal([String(out.body), out.contentType], ['<html>oops</html>', 'text/html']);
});

test.run();
