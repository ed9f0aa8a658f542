import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeJsonBytes } from '../../src/lib/json-bytes.js';
import { decodeWithLiterals } from '../../src/lib/json-literals.js';
import { messagesRequest, readMessages, translateMessages } from '../../src/formats/messages/request.js';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { randomValue } from '../support/random-json.js';
import { rng } from '../support/seeded-random.js';

// Long strings left as the client's literals (lib/json-literals.ts) against the plain decode, on
// random values and on the two translations that use them (a fixed seed, so a failure repeats):
// the bytes written must say what JSON.stringify of the decoded value says, and the decoded value
// (`expand`) must be JSON.parse's.

const ALL = new Set<string>(['value', 'input', 'messages', 'system']);
const parse = (b: Buffer): unknown => JSON.parse(b.toString('utf8'));

/** JSON text of `v`, pretty now and then, with some strings spelled with other escapes than JSON.stringify's. */
function written(v: unknown, r: () => number): Buffer {
  let text = JSON.stringify(v, null, r() < 0.3 ? 2 : undefined);
  if (r() < 0.3) text = text.replace(/é/g, '\\u00e9').replace(/\//g, '\\/');
  return Buffer.from(text, 'utf8');
}

test('random values: written with their literals, they read as the plain decode; expanded, they are it', () => {
  const r = rng(41);
  let withLiterals = 0;
  for (let i = 0; i < 3000; i++) {
    const raw = written({ value: randomValue(r, 0), n: i }, r);
    const d = decodeWithLiterals(raw, ALL, 64, 128);
    // A string with U+0001 or U+0002 (the placeholders' characters) leaves the body to the plain decode.
    if (d === null) {
      assert.ok(/\\u000[12]/.test(raw.toString('utf8')), `case ${i}: decoded`);
      continue;
    }
    if (d!.literals.spans.length > 0) withLiterals++;
    const plain = parse(raw);
    assert.equal(d!.literals.expand(d!.body), plain, `case ${i}: expanded`);
    assert.equal(parse(writeJsonBytes(d!.body, d!.literals)), plain, `case ${i}: written`);
  }
  assert.ok(withLiterals > 200, `${withLiterals} values had long strings`);
});

test('placeholders within longer strings (a translation joins texts) are written as the joined text', () => {
  const long = (s: string): string => s.repeat(40);
  const parts = [long('a "quoted" line\n'), long('é😀 \\ tab\t'), long('\ud83d\ude00 pair')];
  const raw = Buffer.from(JSON.stringify({ value: parts }), 'utf8');
  const d = decodeWithLiterals(raw, ALL, 64, 128)!;
  const got = d.body.value as string[];
  assert.is(d.literals.spans.length, 6);
  const joined = { text: `Error: ${got.join('\n\n')}`, data: `data:image/png;base64,${got[0]}` };
  assert.equal(parse(writeJsonBytes(joined, d.literals)), { text: `Error: ${parts.join('\n\n')}`, data: `data:image/png;base64,${parts[0]}` });
});

test('placeholders side by side, beside a backslash and u0001 spelled out, in non-ASCII text; U+0001 that begins no placeholder is text', () => {
  const long = (s: string): string => s.repeat(40);
  const parts = [long('first\n'), long('second "two"'), long('third é')];
  const raw = Buffer.from(JSON.stringify({ value: parts }), 'utf8');
  const d = decodeWithLiterals(raw, ALL, 64, 128)!;
  const [a, b, c] = d.body.value as string[];
  const value = {
    adjacent: a + b + c,
    escapedText: `\\u0001${a}\\u00011\\u0002`,
    nonAscii: ['ünïcödé 😀', `${b} ✓ ${c}`],
    // Strings a placeholder's characters are in without making one (none comes from a body's
    // decode, but the writer and expand must agree on them): no close, not digits, out of range.
    stray: ['\u0001', '\u00017', '\u0001x\u0002', `\u0001${a}`, '\u000199\u0002', '\u0002\u0001'],
  };
  const expanded = {
    adjacent: parts.join(''),
    escapedText: `\\u0001${parts[0]}\\u00011\\u0002`,
    nonAscii: ['ünïcödé 😀', `${parts[1]} ✓ ${parts[2]}`],
    stray: ['\u0001', '\u00017', '\u0001x\u0002', `\u0001${parts[0]}`, '\u000199\u0002', '\u0002\u0001'],
  };
  assert.equal(d.literals.expand(value), expanded);
  assert.equal(parse(writeJsonBytes(value, d.literals)), expanded);
  // ASCII throughout: the written bytes are the client's literals, copied.
  const ascii = { adjacent: a + b };
  assert.is(writeJsonBytes(ascii, d.literals).toString('utf8'), `{"adjacent":"${JSON.stringify(parts[0]).slice(1, -1)}${JSON.stringify(parts[1]).slice(1, -1)}"}`);
});

test('a body too large for the kept scratch is written from a buffer of its own, and the next small one from the scratch', () => {
  const big = Array.from({ length: 40 }, (_, i) => `${i} ${'code line\n\t"quoted"\n'.repeat(12_000)}`);
  const raw = Buffer.from(JSON.stringify({ value: big }), 'utf8');
  assert.ok(raw.length > 8 * 1024 * 1024);
  const d = decodeWithLiterals(raw, ALL, 64, 128)!;
  assert.equal(parse(writeJsonBytes({ joined: (d.body.value as string[]).join('|') }, d.literals)), { joined: big.join('|') });
  const small = decodeWithLiterals(Buffer.from(JSON.stringify({ value: ['x'.repeat(100)] })), ALL, 64, 128)!;
  assert.equal(parse(writeJsonBytes(small.body, small.literals)), { value: ['x'.repeat(100)] });
});

test('members outside `keep` are decoded; a body holding U+0001 or U+0002 (as a placeholder is written), or not JSON, is left to the plain decode', () => {
  const long = 'x'.repeat(300);
  const d = decodeWithLiterals(Buffer.from(JSON.stringify({ input: long, instructions: long })), new Set(['input']), 64, 128)!;
  assert.is.not(d.body.input, long, 'a placeholder');
  assert.is(d.body.instructions, long, 'decoded');
  for (const text of [`{"input":"${long}\\u0001"}`, `{"input":"short \\u0002","x":"${long}"}`, `{"input":"${long}"`, ` ["${long}"]`,
    `{"input":${'['.repeat(130)}${']'.repeat(130)}}`]) {
    assert.is(decodeWithLiterals(Buffer.from(text), ALL, 64, 128), null, text.slice(0, 40));
  }
  assert.ok(decodeWithLiterals(Buffer.from(` \n{"input":"${long}"} \t`), ALL, 64, 128), 'whitespace around the object');
});

/** A Codex-like Responses body: a long conversation of messages, function calls and their outputs. */
function responsesBody(r: () => number): Record<string, unknown> {
  const text = (): string => ['Fix the build.\n', 'export const x = "é";\n\t// \\ 😀 \ud800\n', 'plain words '][Math.floor(r() * 3)].repeat(1 + Math.floor(r() * 60));
  const input: unknown[] = [];
  for (let i = 0; i < 1 + Math.floor(r() * 8); i++) {
    const k = Math.floor(r() * 5);
    if (k === 0) input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: text() }, { type: 'input_text', text: text() }] });
    else if (k === 1) input.push({ role: 'developer', content: text() });
    else if (k === 2) input.push({ type: 'function_call', call_id: `c${i}`, name: 'shell', arguments: JSON.stringify({ cmd: text() }) });
    else if (k === 3) input.push({ type: 'function_call_output', call_id: `c${i}`, output: r() < 0.5 ? text() : [{ type: 'input_text', text: text() }] });
    else input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: text() }, { type: 'input_image', image_url: `data:image/png;base64,${'QUJD'.repeat(100)}` }] });
  }
  input.push({ type: 'message', role: 'user', content: text() });
  return { model: 'm', instructions: text(), input, store: r() < 0.5, tools: [{ type: 'function', name: 'shell', description: text() }] };
}

test('Responses: the chat request written from the literals reads as the one written from the plain decode', () => {
  const r = rng(43);
  for (let i = 0; i < 300; i++) {
    const raw = written(responsesBody(r), r);
    const full = responsesToChat(parse(raw) as Record<string, unknown>, []);
    const d = decodeWithLiterals(raw, new Set(['input']), 256, 128)!;
    const fast = responsesToChat(d.body, []);
    assert.equal(parse(writeJsonBytes(fast.chat, d.literals)), parse(writeJsonBytes(full.chat)), `case ${i}: the chat request`);
    assert.equal(d.literals.expand(fast.chat), full.chat, `case ${i}: the decoded payload`);
    assert.equal(d.literals.expand(fast.input), full.input, `case ${i}: the items stored`);
    assert.equal(fast.echo, full.echo, `case ${i}: the echo`);
  }
});

test('Messages: the chat request written from the literals reads as the one written from the plain decode', () => {
  const r = rng(47);
  const text = (): string => ['Refactor billing.\n', 'const s = "\\u00e9 \\/ \\"q\\"";\n\t😀 \ud83d\n', 'plain '][Math.floor(r() * 3)].repeat(1 + Math.floor(r() * 60));
  for (let i = 0; i < 300; i++) {
    const messages: unknown[] = [];
    for (let j = 0; j < 1 + Math.floor(r() * 6); j++) {
      messages.push({ role: 'user', content: r() < 0.3 ? text() : [{ type: 'text', text: text() }, { type: 'text', text: text() }] });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: text() }, { type: 'tool_use', id: `t${j}`, name: 'Write', input: { path: 'a.ts', content: text() } }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${j}`, content: r() < 0.5 ? text() : [{ type: 'text', text: text() }], is_error: r() < 0.3 },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJD'.repeat(100) } }] });
    }
    const raw = written({ model: 'm', max_tokens: 100, system: [{ type: 'text', text: text() }, { type: 'text', text: text() }], messages }, r);
    const full = translateMessages(readMessages(raw));
    const d = decodeWithLiterals(raw, new Set(['messages', 'system']), 256, 128)!;
    const fast = translateMessages(messagesRequest(d.body, false, '', d.literals));
    assert.equal(parse(writeJsonBytes(fast, d.literals)), parse(writeJsonBytes(full)), `case ${i}: the chat request`);
    assert.equal(d.literals.expand(fast), full, `case ${i}: the decoded payload`);
  }
});

test.run();
