import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isUtf8 } from 'node:buffer';
import { decodedBody, type InferenceBody } from '../../src/dataplane/inference-body.js';
import { scannedBody } from '../../src/dataplane/scanned-body.js';
import { MAX_JSON_DEPTH } from '../../src/domain/json-body.js';
import { jsonNestsDeeperThan } from '../../src/lib/json-depth.js';
import { scanObject, WantedNames } from '../../src/lib/json-scan.js';
import type { TokenEndpoint } from '../../src/providers/types.js';
import { mutate } from '../support/json-mutate.js';
import { scanVerdict } from '../support/scan-verdict.js';
import { rng } from '../support/seeded-random.js';

// The scan against JSON.parse, on bodies mutated at random (a fixed seed, so a failure repeats):
// whatever the scan accepts, JSON.parse must accept and read the same way, and the bytes a
// provider is sent must say what the gateway read. What the scan does not accept goes to the full
// parse, so refusals stay exactly as they were; the second half checks that ordinary bodies do
// take the scan, or the fast path would be a test that cannot fail.


const CORPUS: string[] = [
  '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}',
  '{ "messages" : [ {"role":"system","content":"नमस्ते, \\"quoted\\" text\\n"}, {"role":"user","content":[{"type":"text","text":"a"}]} ],\n  "temperature": 1.0, "n": 1e0,\n  "model": "gpt-4o-mini", "seed": -7, "stream": true, "stream_options": {"include_usage": true}, "max_tokens": 12 }',
  '{"model":"m","messages":[{"role":"user","content":"caf\\u00e9 \\ud83d\\ude00 \\/ \\b\\f\\r\\t"}],"max_completion_tokens":null,"max_tokens":3,"optimize":"price","provider":["a","b"],"data_policy":null,"upstream_key":"sk-abcdefgh"}',
  '{"model":"m","messages":[{"role":"tool","tool_call_id":"x","content":"{\\"a\\":[1,2,{\\"b\\":null}]}"},{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":["string","null"],"enum":[true,false,0,-0.5e-3,1E+9]}}}}}]}',
  `{"model":"gpt-4o","stream":false,"messages":[{"role":"user","content":"${'long text with a \\"quote\\" and a \\\\ backslash, '.repeat(40)}"}]}`,
  '{"model":"text-embedding-3-small","input":["one","two"],"encoding_format":"base64"}',
  '{"model":"text-embedding-3-small","input":"solo"}',
  // stream_options as the SDKs write it (read without a parse), and spellings near it (parsed).
  '{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}',
  '{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":false},"messages":[{"role":"user","content":"hi"}]}',
  '{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":null},"messages":[{"role":"user","content":"hi"}]}',
  '{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usagf":true},"messages":[{"role":"user","content":"hi"}]}',
  '{"model":"gpt-4o-mini","stream":false,"stream_options":{"include_usage":true,"x":1},"messages":[{"role":"user","content":"hi"}]}',
  '\r\n\t {"model":"m","messages":[{"role":"user","content":""}]} \n',
  // Past the module's first 64 KiB page of memory, with long runs for the sixteen-byte steps.
  JSON.stringify({ model: 'agent', messages: Array.from({ length: 40 }, (_, i) => ({ role: 'tool', content: `line ${i}\n\t"${'x'.repeat(1700 + i)}"\\ é😀\u0001` })) }),
];

const SNIPPETS = ['"model":"x",', '"stream_options":{"include_usage":true},', '{"include_usage":true}', '"include_usage":', 'true}', '"model":', '"stream":true,', '"max_tokens":5,', '"messages":[],', '\\u', '\\ud800', '\\x', '[', ']', '{', '}',
  '"', ',', ':', 'null', 'tru', '1e', '-', '0', '00', '"optimize":"speed",', '"provider":[],', '"role":"",', '"role":1,', '\u00e9', '\ufeff'];

function forwarded(body: InferenceBody, upstreamModel: string, wantUsage: boolean): unknown {
  const out = body.raw!.for(upstreamModel, wantUsage);
  const bytes = Buffer.isBuffer(out) ? out : Buffer.concat(out);
  assert.ok(isUtf8(bytes), 'forwarded bytes are UTF-8');
  return JSON.parse(bytes.toString('utf8'));
}

/**
 * The scanned body reads as the full parse does, and what a provider is sent says the same.
 * True when the scan took the body.
 */
function agrees(endpoint: TokenEndpoint, raw: Buffer, where: string): boolean {
  const v = scanVerdict(() => decodedBody(endpoint, raw), () => scannedBody(endpoint, raw), raw, where);
  if (v === null) return false;
  if (v === 'refused') return true;
  const { fast, full } = v;
  assert.is(fast.model, full.model, `${where}: model`);
  assert.is(fast.stream, full.stream, `${where}: stream`);
  assert.is(fast.maxTokens, full.maxTokens, `${where}: maxTokens`);
  assert.equal(fast.ext, full.ext, `${where}: extensions`);
  assert.equal(fast.payload, full.payload, `${where}: payload`);
  const usage = (full.payload.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  assert.is(fast.usageAsked, usage, `${where}: usageAsked`);
  // The provider reads the gateway's reading: the same members, the route's model, usage asked for on a stream.
  assert.equal(forwarded(fast, full.model, false), full.payload, `${where}: forwarded as read`);
  const renamed = forwarded(fast, 'upstream/model-id', true) as Record<string, unknown>;
  const expected: Record<string, unknown> = { ...full.payload, model: 'upstream/model-id' };
  if (full.stream && !usage) {
    const so = full.payload.stream_options;
    expected.stream_options = { ...(so !== null && typeof so === 'object' && !Array.isArray(so) ? so : {}), include_usage: true };
  }
  assert.equal(renamed, expected, `${where}: forwarded to another model id`);
  return true;
}

test('whatever the scan accepts, JSON.parse reads the same, and the provider is sent what the gateway read (40,000 mutated bodies)', () => {
  const r = rng(17);
  let accepted = 0;
  for (let i = 0; i < 40_000; i++) {
    const seed = Buffer.from(CORPUS[i % CORPUS.length]);
    const b = mutate(seed, r, SNIPPETS);
    const endpoint: TokenEndpoint = i % 5 === 0 ? 'embeddings' : 'chat';
    if (agrees(endpoint, b, `case ${i}`)) accepted++;
  }
  // Most mutations break the body; enough survive that the comparison above was exercised.
  assert.ok(accepted > 2_000, `${accepted} mutated bodies accepted`);
});

test('the scan itself: anything it accepts is valid JSON, an object, UTF-8 and within the nesting limit, and its spans hold the members', () => {
  const wanted = new WantedNames(['model', 'messages', 'stream', 'a', 'b']);
  const r = rng(99);
  for (let i = 0; i < 40_000; i++) {
    const b = mutate(Buffer.from(CORPUS[i % CORPUS.length]), r, SNIPPETS);
    const s = scanObject(b, { wanted, maxDepth: MAX_JSON_DEPTH });
    if (s === null) continue;
    let v: unknown;
    try {
      v = JSON.parse(b.toString('utf8'));
    } catch (e) {
      assert.unreachable(`case ${i}: scan accepted what JSON.parse refuses (${(e as Error).message}): ${JSON.stringify(b.toString('latin1'))}`);
    }
    assert.ok(isUtf8(b), `case ${i}: UTF-8`);
    assert.ok(v !== null && typeof v === 'object' && !Array.isArray(v), `case ${i}: an object`);
    assert.not.ok(jsonNestsDeeperThan(v, MAX_JSON_DEPTH), `case ${i}: depth`);
    const o = v as Record<string, unknown>;
    wanted.names.forEach((name, k) => {
      const span = s.members[k];
      if (span === null) assert.not.ok(Object.hasOwn(o, name), `case ${i}: ${name} missed`);
      else assert.equal(JSON.parse(b.toString('utf8', span.start, span.end)), o[name], `case ${i}: ${name}`);
    });
  }
});

test('nesting: 128 levels are accepted as JSON.parse and the depth check accept them; 129 are left to the full parse, which refuses them', () => {
  const nest = (levels: number): Buffer =>
    Buffer.from(`{"model":"m","messages":[{"role":"user","content":"x"}],"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`);
  assert.ok(scannedBody('chat', nest(128)) !== null);
  assert.is(scannedBody('chat', nest(129)), null);
  assert.throws(() => decodedBody('chat', nest(129)), /nests more than 128/);
  const deepRole = Buffer.from(`{"model":"m","messages":[{"role":"user","content":${'['.repeat(125)}${']'.repeat(125)}}]}`);
  assert.ok(scannedBody('chat', deepRole) !== null, '125 inside content: 128 in all');
  assert.is(scannedBody('chat', Buffer.from(`{"model":"m","messages":[{"role":"user","content":${'['.repeat(126)}${']'.repeat(126)}}]}`)), null);
});

test('ordinary bodies take the scan: random JSON.stringify output, pretty or compact, with every string shape', () => {
  const r = rng(5);
  const word = (): string => {
    const parts = ['a', 'नमस्ते', '"', '\\', '\n', '\t', '\u0001', '\u007f', '😀', '\ud800', ' ', '/', '</script>', 'x'.repeat(300)];
    let s = '';
    for (let i = Math.floor(r() * 6); i > 0; i--) s += parts[Math.floor(r() * parts.length)];
    return s;
  };
  const value = (depth: number): unknown => {
    const k = Math.floor(r() * (depth > 6 ? 4 : 6));
    if (k === 0) return word();
    if (k === 1) return r() < 0.5 ? Math.floor(r() * 1e6) - 5e5 : (r() - 0.5) * 1e-3;
    if (k === 2) return [true, false, null][Math.floor(r() * 3)];
    if (k === 3) return word().length;
    if (k === 4) return Array.from({ length: Math.floor(r() * 4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, () => [word(), value(depth + 1)]));
  };
  let taken = 0;
  let total = 0;
  for (let i = 0; i < 3_000; i++) {
    const body: Record<string, unknown> = {
      model: `m-${word()}`.trimEnd() || 'm', messages: Array.from({ length: 1 + Math.floor(r() * 4) }, () => ({ role: 'user', content: value(3), extra: value(3) })),
      ...Object.fromEntries(Array.from({ length: Math.floor(r() * 3) }, () => [`k${word()}`, value(1)])),
    };
    if (r() < 0.3) body.stream = r() < 0.5;
    if (r() < 0.3) body.max_tokens = 1 + Math.floor(r() * 100);
    const text = JSON.stringify(body, null, r() < 0.3 ? 2 : undefined);
    // A lone surrogate is written as \ud800 by JSON.stringify, so every such text is UTF-8.
    const raw = Buffer.from(text, 'utf8');
    total++;
    if (agrees('chat', raw, `random ${i}`)) taken++;
  }
  assert.is(taken, total, 'every well-formed body with plain top-level keys takes the scan');
});

test('strings dense with escapes, at every alignment and up to the body\'s end: the scan ends each where JSON.parse does, and refuses what it refuses', () => {
  // The scan passes a run of two-byte escapes within the sixteen bytes it loaded (json-skip.wat
  // $skip); these put escapes, bad escapes, control bytes and quotes at every offset of a load,
  // across its end, and in the last sixteen bytes of the body, read a byte at a time.
  const r = rng(23);
  const pieces = ['a', 'é', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u00e9', '\\u0001', '\\ud83d\\ude00',
    '\\x', '\\a', '\\0', '\\u12', '\\U0041', '\\\u0080', '\t', '\u0001', '"', '\\'];
  const bad = new Set(['\\x', '\\a', '\\0', '\\u12', '\\U0041', '\\\u0080', '\t', '\u0001', '"', '\\']);
  let taken = 0;
  let refused = 0;
  for (let i = 0; i < 20_000; i++) {
    let s = 'p'.repeat(Math.floor(r() * 17));
    for (let k = Math.floor(r() * 24); k > 0; k--) {
      const piece = pieces[Math.floor(r() * pieces.length)];
      // Mostly well-formed strings, so that acceptance is exercised as much as refusal.
      if (bad.has(piece) && r() < 0.85) continue;
      s += piece;
    }
    const last = r() < 0.5;
    const text = last
      ? `{"model":"m","messages":[{"role":"user","content":"x"}],"z":"${s}"}`
      : `{"model":"m","messages":[{"role":"user","content":"${s}","name":"n"}],"stream":true}`;
    let valid = true;
    try {
      JSON.parse(text);
    } catch {
      valid = false;
    }
    // Every body of this shape is read by the scan when it is valid JSON, and declined when not.
    assert.is(agrees('chat', Buffer.from(text), `escapes ${i}: ${JSON.stringify(text)}`), valid, `escapes ${i}: ${JSON.stringify(text)}`);
    if (valid) taken++;
    else refused++;
  }
  assert.ok(taken > 5_000, `${taken} bodies of well-formed strings read by the scan`);
  assert.ok(refused > 1_000, `${refused} bodies of malformed strings refused`);
});

test('roles of conversations short and long (checked in the module from eight messages): taken exactly when the full parse accepts them', () => {
  const roles = ['"user"', '"assistant"', '""', '"us\\u0065r"', '"\\u0000"', '"a\\\\b"', '5', 'null', '["user"]', null];
  const r = rng(31);
  for (let i = 0; i < 2_000; i++) {
    const count = 1 + Math.floor(r() * 14);
    const odd = Math.floor(r() * count);
    const role = roles[Math.floor(r() * roles.length)];
    const messages = Array.from({ length: count }, (_, k) => {
      if (k !== odd) return `{"role":"user","content":"m${k}"}`;
      return role === null ? '{"content":"x"}' : `{"content":"x","role":${role}}`;
    });
    const raw = Buffer.from(`{"model":"m","messages":[${messages.join(',')}]}`);
    let accepted = true;
    try {
      decodedBody('chat', raw);
    } catch {
      accepted = false;
    }
    assert.is(agrees('chat', raw, `roles ${i}`), accepted, `roles ${i}: ${raw.toString()}`);
  }
});

test('what the scan leaves to the full parse, and why', () => {
  const base = '"messages":[{"role":"user","content":"hi"}]';
  const left = [
    `{"model":"a",${base},"model":"b"}`, // a wanted member twice: parsers disagree on which counts
    `{"mod\\u0065l":"a",${base}}`, // an escaped top-level key
    `{"model":"a","messages":[{"role":"user","rol\\u0065":"x"}]}`, // an escaped key beside a role
    `{"model":"a","messages":[{"role":"user","role":"tool"}]}`, // a role twice
    `\ufeff{"model":"a",${base}}`, // a byte order mark
    `{"model":"a",${base},"stream":null}`, // a schema failure: the full parse names it
    `{"model":"",${base}}`,
    `{"model":"a","messages":[]}`,
    `{"model":"a","messages":[{"role":""}]}`,
    `{"model":"a","messages":[{"content":"x"}]}`,
    `{"model":"a","messages":["user"]}`,
    `{"model":"a",${base},"max_tokens":0}`,
    `{"model":"a",${base},"max_tokens":1.5}`,
    `{"model":"a",${base},"max_tokens":"5"}`,
    `{"model":7,${base}}`,
    `["model"]`,
  ];
  for (const text of left) assert.is(scannedBody('chat', Buffer.from(text)), null, text);
  const bad = Buffer.concat([Buffer.from(`{"model":"a",${base.slice(0, -3)}`), Buffer.from([0xff]), Buffer.from('"}]}')]);
  assert.is(scannedBody('chat', bad), null, 'bytes that are not UTF-8');
  assert.is(scannedBody('embeddings', Buffer.from('{"model":"e","input":[]}')), null);
  assert.is(scannedBody('embeddings', Buffer.from('{"model":"e","input":"x","encoding_format":"int8"}')), null);
});

test.run();
