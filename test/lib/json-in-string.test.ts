import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inStringAdds, writeJsonInString } from '../../src/lib/json-in-string.js';
import { bodyMemory } from '../../src/lib/json-scan.js';
import { SpanWriter } from '../../src/lib/span-writer.js';
import { randomValue } from '../support/random-json.js';
import { rng } from '../support/seeded-random.js';

// A JSON value's bytes written as a JSON string (lib/json-in-string.ts) against the decode and
// the two writes it stands for: when it writes, it writes what JSON.stringify(JSON.stringify(
// JSON.parse(text))) does; it writes JSON.stringify's own text; it leaves every other spelling.
// The same in WebAssembly (`instring` and `spans` in json-skip.wat, through SpanWriter#inString),
// on every case: it writes what the JavaScript writes, or leaves it to it (-2) where that may.

function inString(text: string): string | null {
  const js = inStringJs(text);
  const wasm = inStringWasm(text);
  if (wasm === undefined) return js;
  assert.is(wasm, js, `WebAssembly as JavaScript: ${text.slice(0, 200)}`);
  return wasm;
}

const writer = new SpanWriter();

/** The value written by the module, inside a body (at an offset, as a tool input is); undefined when left to JavaScript. */
function inStringWasm(text: string): string | null | undefined {
  const raw = Buffer.from(`{"input":${text}}`, 'utf8');
  const from = 9;
  const to = raw.length - 1;
  assert.ok(bodyMemory(raw, 0) !== null);
  const adds = inStringAdds(raw, from, to);
  if (adds === -2) return undefined;
  if (adds === -1) return null;
  writer.begin();
  writer.inString(from, to, adds);
  const out = writer.write(raw)!;
  return Buffer.from(out.bytes.subarray(out.from, out.to)).toString('utf8');
}

function inStringJs(text: string): string | null {
  const raw = Buffer.from(text, 'utf8');
  // Escaped, a value is at most twice its bytes and two quotes.
  const w = { buf: Buffer.alloc(2 * raw.length + 2), at: 0 };
  const before = w.at;
  if (!writeJsonInString(w, raw, 0, raw.length)) {
    assert.is(w.at, before, 'nothing written');
    return null;
  }
  return w.buf.toString('utf8', 0, w.at);
}

test('random objects: JSON.stringify text is taken, and written as the decode and two writes; other spellings are left or agree', () => {
  const r = rng(77);
  let taken = 0;
  for (let i = 0; i < 5000; i++) {
    const value = { v: randomValue(r, 1), n: i };
    const canonical = JSON.stringify(value);
    const want = JSON.stringify(canonical);
    const got = inString(canonical);
    // Left: a lone surrogate (JSON.stringify escapes it as \udXXX) or a key that is an array index.
    if (got === null) assert.ok(/\\ud[89a-f]|"\d+":/.test(canonical), `case ${i}: left ${canonical.slice(0, 200)}`);
    else {
      taken++;
      assert.is(got, want, `case ${i}`);
    }
    for (const other of [JSON.stringify(value, null, 1), canonical.replace(/é/g, '\\u00e9'), canonical.replace(/\//g, '\\/'), canonical.replace(/\\n/g, '\\u000a')]) {
      const o = inString(other);
      if (o !== null) assert.is(o, JSON.stringify(JSON.stringify(JSON.parse(other))), `case ${i}: ${other.slice(0, 200)}`);
    }
  }
  assert.ok(taken > 3000, `${taken} taken`);
});

test('numbers, keys and escapes JSON.stringify would write otherwise are left', () => {
  for (const text of ['{"a":1.0}', '{"a":1e2}', '{"a":-0}', '{"a":1E5}', '{"a":12345678901234567890}', '{"a":1,"a":2}', '{"b":1,"1":2}',
    '{"a":"\\u00e9"}', '{"a":"\\/"}', '{"a":"\\u000A"}', '{"a":"\\u000a"}', '{"a": 1}', '{ "a":1}', '{"a":[1, 2]}']) {
    assert.is(inString(text), null, text);
  }
  // Sixteen digits may not survive the decode: 9999999999999999 is written 10000000000000000.
  assert.is(inString('{"a":9999999999999999}'), null);
  assert.is(inString('{"a":-999999999999999,"b":999999999999999}'), JSON.stringify('{"a":-999999999999999,"b":999999999999999}'));
  for (const text of ['{}', '{"a":[]}', '{"a":-1.5,"b":[true,false,null],"c":{"d":"\\u001f\\n\\"\\\\"}}', '{"a":123456789012345}', '{"":0,"é😀":"\u2028"}']) {
    assert.is(inString(text), JSON.stringify(JSON.stringify(JSON.parse(text))), text);
  }
});

test('deep nesting and many keys (past the reused stacks\' first sizes): the same text, and a repeated key still left', () => {
  const deep = `${'{"k":['.repeat(150)}1${']}'.repeat(150)}`;
  assert.is(inString(deep), JSON.stringify(deep));
  const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`key${i}`, { [`in${i}`]: i, x: [i] }])));
  assert.is(inString(wide), JSON.stringify(wide));
  assert.is(inString(`${wide.slice(0, -1)},"key399":0}`), null, 'the last of 400 keys given twice');
  // After a refusal the stacks start over: the next value is read as on its own.
  assert.is(inString('{"a":{"b":1},"b":2}'), JSON.stringify('{"a":{"b":1},"b":2}'));
});

test('the module takes the usual values itself, and leaves only what it must to JavaScript', () => {
  const r = rng(78);
  let taken = 0;
  for (let i = 0; i < 2000; i++) {
    const canonical = JSON.stringify({ v: randomValue(r, 1), n: i });
    if (inStringWasm(canonical) !== undefined) taken++;
  }
  // Left: numbers other than short whole ones, which random values often hold.
  assert.ok(taken > 600, `${taken} taken`);
  const text = '{"command":"ls -la \\"src\\"","description":"List the files in src/ and \\"test\\"","n":[1,-2,30],"ok":true,"x":null}';
  assert.is(inStringWasm(text), JSON.stringify(text));
  for (const left of ['{"a":1.5}', '{"a":-0}', '{"a":1e3}', '{"a":1234567890123456}', '{"a":-1234567890123456}', `${'['.repeat(130)}${']'.repeat(130)}`]) {
    assert.is(inStringWasm(left), undefined, left);
  }
  const manyKeys = JSON.stringify(Object.fromEntries(Array.from({ length: 1100 }, (_, i) => [`k${i}`, i])));
  assert.is(inStringWasm(manyKeys), undefined, 'past the room for keys');
  assert.is(inString(manyKeys), JSON.stringify(manyKeys));
});

test.run();
