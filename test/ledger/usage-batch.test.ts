import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { UsageRecord } from '../../src/domain/usage-record.js';
import { decodeBatch, UsageBatchBuilder } from '../../src/ledger/usage-batch.js';

function record(extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    at: 1_795_000_000_123, requestId: 'boot-1', orgId: 'org_a', workspaceId: 'ws_a', keyId: 'key_a', endpoint: 'chat',
    model: 'gpt-4o-mini', provider: 'openai', route: 'openai:gpt-4o-mini', attempt: 0, status: 200, errorCode: null,
    promptTokens: 11, completionTokens: 7, units: 0, costMicros: 1_059, latencyMs: 12.5, ttfbMs: 3.25,
    streamed: false, byok: false, billable: true, usageEstimated: false, queueMs: 0, usageClamped: false,
    cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, guardrail: null, cacheHit: false, ...extra,
  };
}

test('records come back as the writer\'s rows, across a structured clone, in order', () => {
  const b = new UsageBatchBuilder();
  const records = [
    record(),
    record({ requestId: 'boot-2', attempt: 1, status: 502, errorCode: 'connect_error', billable: false, costMicros: 0, ttfbMs: null,
      provider: null, route: null, streamed: true, byok: true, usageEstimated: true, units: 61, queueMs: 250.0004, usageClamped: true, guardrail: 'redacted=aadhaar,pan' }),
    record({ requestId: 'boot-3', model: 'together/meta-llama/Llama-3.3 "70B"\n\u0000नमस्ते', costMicros: 3_000_000_000_000,
      latencyMs: 0.123456789, ttfbMs: 0.0004 }),
  ];
  for (const r of records) b.add(r);
  assert.is(b.count, 3);
  const rows = decodeBatch(structuredClone(b.take()));
  assert.equal(rows[0], [1_795_000_000_123, 'boot-1', 'org_a', 'ws_a', 'key_a', 'chat', 'gpt-4o-mini', 'openai', 'openai:gpt-4o-mini',
    0, 200, null, 11, 7, 1_059, 12.5, 3.25, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, null, 0]);
  assert.equal(rows[1].slice(7, 12), [null, null, 1, 502, 'connect_error']);
  assert.equal(rows[1].slice(16), [null, 1, 1, 0, 1, 61, 250, 1, 0, 0, 0, 'redacted=aadhaar,pan', 0]);
  assert.is(rows[2][6], 'together/meta-llama/Llama-3.3 "70B"\n\u0000नमस्ते');
  assert.is(rows[2][14], 3_000_000_000_000);
  assert.is(rows[2][15], 0.123, 'times are kept to the microsecond');
  assert.is(rows[2][16], 0);
});

test('cached, cache-write and reasoning tokens cross in their own slots, after the older columns', () => {
  const b = new UsageBatchBuilder();
  b.add(record({ promptTokens: 2_000, completionTokens: 300, cachedTokens: 1_500, cacheWriteTokens: 250, reasoningTokens: 120 }));
  const [row] = decodeBatch(structuredClone(b.take()));
  assert.equal([row[12], row[13]], [2_000, 300]);
  assert.equal(row.slice(24, 27), [1_500, 250, 120]);
});

test('each distinct string crosses once per batch, and a new batch starts empty', () => {
  const b = new UsageBatchBuilder();
  for (let i = 0; i < 600; i++) b.add(record({ requestId: `boot-${i}` }));
  const first = b.take();
  // 600 request ids, plus org, workspace, key, endpoint, model, provider and route once each.
  assert.is(first.strings.length, 607);
  assert.is(first.values.length, 600 * 29);
  assert.is(b.count, 0);
  b.add(record({ requestId: 'next' }));
  const second = b.take();
  assert.is(second.count, 1);
  assert.equal(decodeBatch(second)[0][1], 'next');
  assert.is(decodeBatch(first)[599][1], 'boot-599');
});

test('a text field that is not a string reaches the writer as null, for its constraint to refuse', () => {
  const b = new UsageBatchBuilder();
  b.add(record({ model: null as unknown as string }));
  assert.is(decodeBatch(b.take())[0][6], null);
});

test.run();
