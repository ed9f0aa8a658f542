import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spanJson } from '../../src/telemetry/otlp-json.js';
import { epochNs } from '../../src/telemetry/span.js';

test('a span written by hand is the OTLP JSON a parser reads: values typed, nulls left out, strings escaped', () => {
  const text = spanJson({
    traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), parentSpanId: null, name: 'chat "quoted" ✓', kind: 2, startNs: '1', endNs: '2',
    attributes: { s: 'line\nbreak\\', i: 42, d: 0.5, b: false, n: null }, status: 2, statusMessage: 'bad "x"',
  });
  assert.equal(JSON.parse(text), {
    traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'chat "quoted" ✓', kind: 2, startTimeUnixNano: '1', endTimeUnixNano: '2',
    attributes: [{ key: 's', value: { stringValue: 'line\nbreak\\' } }, { key: 'i', value: { intValue: '42' } },
      { key: 'd', value: { doubleValue: 0.5 } }, { key: 'b', value: { boolValue: false } }],
    status: { code: 2, message: 'bad "x"' },
  });
  assert.is(JSON.parse(spanJson({ traceId: 't', spanId: 's', parentSpanId: 'p', name: 'n', kind: 3, startNs: '1', endNs: '2', attributes: {}, status: 1 })).parentSpanId, 'p');
});

test('epoch milliseconds become nanoseconds to the microsecond, a fraction that rounds up carrying into the milliseconds', () => {
  assert.is(epochNs(1_764_000_000_123.25), '1764000000123250000');
  assert.is(epochNs(1_764_000_000_000), '1764000000000000000');
  assert.is(epochNs(1_000.9999999), '1001000000');
});

test.run();
