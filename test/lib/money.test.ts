import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatInr, inrToMicros, microsToInr, parseInr, rupees } from '../../src/lib/money.js';

test('rupees as numbers become integer micro-rupees, and back', () => {
  assert.is(inrToMicros(12.5), 12_500_000);
  assert.is(inrToMicros(0.1 + 0.2), 300_000, 'float residue rounds away');
  assert.is(microsToInr(12_500_000), 12.5);
  assert.is(microsToInr(null), null);
});

test('rupees written as a decimal are read exactly, up to six places; anything else is refused', () => {
  assert.is(parseInr('500'), 500_000_000);
  assert.is(parseInr('12.50'), 12_500_000);
  assert.is(parseInr('0.000001'), 1);
  assert.is(parseInr('1234567.123456'), 1_234_567_123_456);
  for (const bad of ['', '-1', '1.', '.5', '1.0000001', '1e3', ' 5', '5 ', '1,000']) assert.is(parseInr(bad), null, bad);
});

test('micro-rupees are written as a plain decimal cut at the places asked, with no float residue', () => {
  assert.is(formatInr(12_500_000), '12.50');
  assert.is(formatInr(12_509_999), '12.50', 'cut, not rounded');
  assert.is(formatInr(0), '0.00');
  assert.is(formatInr(-1_500_000), '-1.50');
  assert.is(formatInr(1, 6), '0.000001');
  assert.is(formatInr(123_456_789_012, 6), '123456.789012');
});

test('₹ for people: Indian digit grouping and paise', () => {
  assert.is(rupees(123_456_700_000), '₹1,23,456.70');
});

test.run();
