import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { UsageRecord } from '../../src/domain/usage-record.js';
import { Registry } from '../../src/metrics/registry.js';
import { UsageSeries } from '../../src/metrics/usage-series.js';
import { AnswerSeries } from '../../src/metrics/answer-series.js';
import { CodeLabels, MAX_CODES } from '../../src/metrics/code-labels.js';
import { parsePromText, sampleSum, sampleValue } from '../support/prom-text.js';

const base: UsageRecord = {
  at: 0, requestId: 'r', orgId: 'o', workspaceId: 'w', keyId: 'k', endpoint: 'chat', model: 'llama', provider: 'groq', route: 'groq:l',
  attempt: 0, status: 200, errorCode: null, promptTokens: 10, completionTokens: 5, costMicros: 1_234, latencyMs: 50, ttfbMs: 20,
  streamed: false, byok: false, billable: true, usageEstimated: false, units: 0, queueMs: 0, usageClamped: false, cachedTokens: 4,
  cacheWriteTokens: 0, reasoningTokens: 0, guardrail: null, cacheHit: false,
};

function series() {
  const reg = new Registry();
  const s = new UsageSeries(reg, (id) => id === 'llama', (id) => id === 'groq', new CodeLabels());
  return { s, read: () => parsePromText(reg.render()) };
}

test('models and providers outside the catalog share the label other, so callers cannot grow the series', () => {
  const { s, read } = series();
  s.record(base);
  s.record({ ...base, model: 'groq/some-model-1', provider: 'groq' });
  s.record({ ...base, model: 'groq/some-model-2', provider: 'groq' });
  s.record({ ...base, model: 'acme-endpoint/x', provider: 'ep_123' });
  s.record({ ...base, model: 'beta-endpoint/y', provider: 'ep_456' });
  const m = read();
  const attempts = (model: string, provider: string) =>
    sampleValue(m, 'gw_upstream_attempts_total', { endpoint: 'chat', provider, model, status: '200', code: '' });
  assert.is(attempts('llama', 'groq'), 1);
  assert.is(attempts('other', 'groq'), 2);
  assert.is(attempts('other', 'other'), 2);
  assert.is(m.get('gw_upstream_attempts_total')!.samples.length, 3);
});

test('failed attempts count as attempts with their code, but add no tokens, cost or token usage', () => {
  const { s, read } = series();
  s.record(base);
  s.record({ ...base, status: 502, errorCode: 'upstream_error', billable: false, promptTokens: 0, completionTokens: 0, costMicros: 0 });
  const m = read();
  assert.is(sampleValue(m, 'gw_upstream_attempts_total', { endpoint: 'chat', provider: 'groq', model: 'llama', status: '502', code: 'upstream_error' }), 1);
  assert.is(sampleSum(m, 'gw_tokens_total', { type: 'input' }), 10);
  assert.is(sampleSum(m, 'gw_tokens_total', { type: 'cached' }), 4);
  assert.is(sampleValue(m, 'gw_cost_inr_total', { provider: 'groq', model: 'llama' }), 0.001234);
  assert.is(sampleSum(m, 'gen_ai_client_token_usage_count', { gen_ai_token_type: 'input' }), 1);
  assert.is(sampleSum(m, 'gen_ai_client_operation_duration_seconds_count'), 2);
});

test('only served streams are timed to their first token, and audio is not counted as token usage', () => {
  const { s, read } = series();
  s.record(base);
  s.record({ ...base, streamed: true, ttfbMs: 30 });
  s.record({ ...base, endpoint: 'transcriptions', units: 60, promptTokens: 0, completionTokens: 0 });
  const m = read();
  assert.is(sampleSum(m, 'gen_ai_server_time_to_first_token_seconds_count'), 1);
  assert.is(sampleSum(m, 'gen_ai_server_time_to_first_token_seconds_sum'), 0.03);
  assert.is(sampleSum(m, 'gen_ai_client_token_usage_count', { gen_ai_token_type: 'output' }), 2);
});

test('error codes past the cap are counted as other, in attempts and in answers alike, so an endpoint cannot grow the series', () => {
  const reg = new Registry();
  const codes = new CodeLabels();
  const s = new UsageSeries(reg, (id) => id === 'llama', (id) => id === 'groq', codes);
  const route = new AnswerSeries(reg, codes).forRoute('/v1/chat/completions');
  const n = MAX_CODES + 50;
  for (let i = 0; i < n; i++) {
    s.record({ ...base, status: 400, errorCode: `code_${i}`, billable: false });
    route.answered(400, `code_${i}`, 0.01);
  }
  s.record({ ...base, status: 400, errorCode: `code_${n - 1}`, billable: false });
  route.answered(400, `code_${n - 1}`, 0.01);
  const m = parsePromText(reg.render());
  assert.is(m.get('gw_upstream_attempts_total')!.samples.length, MAX_CODES + 1);
  assert.is(sampleValue(m, 'gw_upstream_attempts_total', { endpoint: 'chat', provider: 'groq', model: 'llama', status: '400', code: 'code_0' }), 1);
  assert.is(sampleValue(m, 'gw_upstream_attempts_total', { endpoint: 'chat', provider: 'groq', model: 'llama', status: '400', code: 'other' }), 51);
  assert.is(m.get('gw_http_requests_total')!.samples.length, MAX_CODES + 1);
  assert.is(sampleValue(m, 'gw_http_requests_total', { route: '/v1/chat/completions', status: '400', code: 'other' }), 51);
  assert.is(sampleSum(m, 'gw_http_requests_total'), n + 1);
});

test('guardrail detections count once a request, by action and detector; cache hits count apart from upstream attempts', () => {
  const { s, read } = series();
  // A failover: the failed attempt's record carries the same summary as the served one.
  s.record({ ...base, status: 502, errorCode: 'upstream_error', billable: false, guardrail: 'redacted=aadhaar,pan' });
  s.record({ ...base, guardrail: 'redacted=aadhaar,pan' });
  s.record({ ...base, provider: null, route: null, status: 400, errorCode: 'guardrail_blocked', billable: false, guardrail: 'blocked=card' });
  s.record({ ...base, provider: null, route: null, billable: false, costMicros: 0, cacheHit: true });
  const m = read();
  const det = (action: string, detector: string) => sampleValue(m, 'gw_guardrail_detections_total', { action, detector });
  assert.equal([det('redacted', 'aadhaar'), det('redacted', 'pan'), det('blocked', 'card')], [1, 1, 1]);
  assert.is(sampleValue(m, 'gw_cache_hits_total', { endpoint: 'chat', model: 'llama' }), 1);
  assert.is(sampleSum(m, 'gw_upstream_attempts_total'), 3, 'the hit is no attempt');
});

test.run();
