import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { csvField, csvRecord } from '../../src/lib/csv.js';

test('plain text, numbers, booleans and null are written as they are', () => {
  assert.equal(['abc', 'gpt-4o-mini', 'sandbox/echo', 0, -1.5, 0.001059, true, false, null].map(csvField),
    ['abc', 'gpt-4o-mini', 'sandbox/echo', '0', '-1.5', '0.001059', 'true', 'false', '']);
});

test('a field with a comma, a quote, CR or LF is quoted and its quotes doubled (RFC 4180)', () => {
  assert.is(csvField('a,b'), '"a,b"');
  assert.is(csvField('say "hi"'), '"say ""hi"""');
  assert.is(csvField('two\nlines'), '"two\nlines"');
  assert.is(csvField('cr\rhere'), '"cr\rhere"');
});

test('text a spreadsheet would run as a formula gets a leading apostrophe; a negative number stays a number', () => {
  for (const s of ['=1+1', '+cmd', '-2+3', '@SUM(A1)', '\tx', '\rx']) assert.ok(csvField(s).replace(/^"/, '').startsWith(`'${s[0]}`), JSON.stringify(s));
  assert.is(csvField('=HYPERLINK("http://x","y")'), '"\'=HYPERLINK(""http://x"",""y"")"');
  assert.is(csvField(-3), '-3');
  assert.is(csvField('a=b'), 'a=b');
});

test('a record joins its fields with commas and ends with CRLF', () => {
  assert.is(csvRecord(['a', 1, null, 'x,y']), 'a,1,,"x,y"\r\n');
  assert.is(csvRecord([]), '\r\n');
});

test.run();
