import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseInferenceBody } from '../../src/dataplane/inference-body.js';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { anthropicRequestBytes } from '../../src/providers/anthropic/request-bytes.js';
import { agentText, pick } from '../support/agent-text.js';
import { mutate } from '../support/json-mutate.js';
import { rng } from '../support/seeded-random.js';

// The Anthropic request written from a chat body's bytes (request-bytes.ts) against the object
// translation (toMessagesRequest, written by messagesRequestJson): for every body the byte path
// takes, its request must read as the same JSON text once parsed and written again (members in
// the same order), and the object translation must not refuse the body; for bodies made only of
// the shapes it covers, it must take them. Random bodies, a fixed seed (a failure repeats).

const MODEL = 'claude-haiku-4-5-20251001';
const CAPS = { streamOptions: false };

type Outcome = { text: string } | { error: string };

function objectPath(raw: Buffer): Outcome {
  try {
    const body = parseInferenceBody('chat', raw);
    return { text: anthropicAdapter.buildCall('chat', body.payload, MODEL, CAPS).body as string };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The byte path's request for `raw`, or null when it leaves the body to the object path (or the scan did not read it). */
function bytePath(raw: Buffer): Buffer | null {
  let scanned;
  try {
    scanned = parseInferenceBody('chat', raw).scanned ?? null;
  } catch {
    return null;
  }
  return scanned === null ? null : anthropicRequestBytes(scanned, MODEL);
}

function compare(raw: Buffer, label: string): boolean {
  const got = bytePath(raw);
  if (got === null) return false;
  const want = objectPath(raw);
  assert.not.ok('error' in want, `${label}: the byte path took a body the object path refuses (${'error' in want ? want.error : ''})`);
  assert.is(JSON.stringify(JSON.parse(got.toString('utf8'))), (want as { text: string }).text, `${label}: request`);
  return true;
}

const TEXTS = ['', 'hi', 'Sé "breve".\nनमस्ते 😀', 'tab\there \\ back', '\u0001control', 'lone \ud800 half', 'x'.repeat(40)];
const text = (r: () => number): string => (r() < 0.3 ? agentText(r) : pick(r, TEXTS));

/** A random message; `covered` is cleared when it is of a shape the byte path leaves to the object translation. */
function message(r: () => number, covered: { yes: boolean }): Record<string, unknown> {
  const k = r();
  const role = k < 0.15 ? pick(r, ['system', 'developer']) : k < 0.55 ? 'user' : k < 0.96 ? 'assistant' : pick(r, ['tool', 'function', 'critic']);
  if (role === 'tool' || role === 'function' || role === 'critic') covered.yes = false;
  const m: Record<string, unknown> = { role };
  if (role === 'tool') m.tool_call_id = 'call_1';
  const c = r();
  if (c < 0.45) m.content = text(r);
  else if (c < 0.55) m.content = null;
  else if (c < 0.6) {
    if (role === 'system' || role === 'developer') covered.yes = false;
  } else if (c < 0.61) {
    m.content = 7;
    covered.yes = false;
  } else {
    m.content = Array.from({ length: Math.floor(r() * 4) }, () => {
      const p = r();
      if (p < 0.93) return { type: 'text', text: text(r) };
      covered.yes = false;
      if (p < 0.95) return { type: 'image_url', image_url: { url: 'https://example.com/a.png' } };
      if (p < 0.96) return { type: 'text', text: 'marked', cache_control: { type: 'ephemeral' } };
      if (p < 0.97) return { type: 'refusal', refusal: 'no' };
      if (p < 0.98) return { type: 'text' };
      return 'loose';
    });
  }
  if (role === 'assistant' && r() < 0.1) {
    if (r() < 0.5) m.tool_calls = null;
    else {
      m.tool_calls = [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }];
      covered.yes = false;
    }
  }
  if (r() < 0.02) {
    m.cache_control = { type: 'ephemeral' };
    covered.yes = false;
  }
  if (r() < 0.05) m.name = 'alice';
  return m;
}

function written(v: Record<string, unknown>, r: () => number): Buffer {
  let s = JSON.stringify(v, null, r() < 0.2 ? 2 : undefined);
  if (r() < 0.2) s = s.replace(/é/g, '\\u00e9').replace(/\//g, '\\/');
  // A member name spelled with an escape: the byte path leaves the body to the object translation.
  if (r() < 0.03) s = s.replace('"temperature"', '"temp\\u0065rature"');
  if (r() < 0.03) s = s.replace('"content"', '"c\\u006fntent"');
  // Numbers JSON.stringify does not write: the byte path reads a plain run of digits itself.
  if (r() < 0.05) s = s.replace(/"(max_tokens|max_completion_tokens|n|top_k)":\s*(\d+)/, (_, k, d) => `"${k}":${pick(r, [`${d}.0`, `${d}e0`, `${d}E+1`, `-${d}`, `0.${d}`])}`);
  return Buffer.from(s, 'utf8');
}

test('random chat bodies: what the byte path writes reads as the object translation; it takes every body of the shapes it covers', () => {
  const r = rng(1717);
  let taken = 0;
  let coveredBodies = 0;
  for (let i = 0; i < 4000; i++) {
    const covered = { yes: true };
    const messages = Array.from({ length: 1 + Math.floor(r() * 7) }, () => message(r, covered));
    const body: Record<string, unknown> = { model: pick(r, ['claude-haiku-4-5', 'm/é']), messages };
    if (r() < 0.3) body.max_tokens = pick(r, [1, 200, 0, -3, 2.5, null, '9']);
    if (r() < 0.3) body.max_completion_tokens = pick(r, [70, 0, null]);
    if (r() < 0.3) body.stream = r() < 0.5;
    if (r() < 0.2) body.stream_options = { include_usage: true };
    if (r() < 0.3) body.temperature = pick(r, [0, 0.5, 1.0, 1e-7, '1', null]);
    if (r() < 0.2) body.top_p = pick(r, [0.9, 1]);
    if (r() < 0.1) body.top_k = pick(r, [40, 'x']);
    if (r() < 0.2) body.stop = pick(r, ['END', ['END', 'STOP "now"'], [], null, 5, [1]]);
    if (r() < 0.2) body.user = pick(r, ['u-1', '', 7, 'é/"x"']);
    if (r() < 0.1) body.n = pick(r, [1, 2, null]);
    if (r() < 0.2) {
      body.tools = pick(r, [[], null, [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }], 'bad']);
      if (body.tools !== null && !(Array.isArray(body.tools) && body.tools.length === 0)) covered.yes = false;
    }
    if (r() < 0.1) body.tool_choice = 'auto';
    if (r() < 0.1) body.frequency_penalty = 0.2;
    if (r() < 0.1) body.cache = pick(r, ['auto', 'off']);
    const raw = written(body, r);
    const got = compare(raw, `case ${i}`);
    if (got) taken++;
    const plainly = covered.yes && !raw.includes('\\u0065rature') && !raw.includes('c\\u006fntent');
    if (plainly && !got && !('error' in objectPath(raw))) {
      assert.unreachable(`case ${i}: a body of covered shapes was left to the object path: ${raw.toString('utf8').slice(0, 400)}`);
    }
    if (plainly) coveredBodies++;
  }
  assert.ok(taken > 1000, `${taken} bodies taken by the byte path`);
  assert.ok(coveredBodies > 1000, `${coveredBodies} bodies of covered shapes`);
});

/** Pieces of a chat body spliced in by the mutations: members and values the byte path reads. */
const SNIPPETS = ['"role":"user"', '"role":"system"', '"content":', '"text"', '"type":"text",', 'null', '[]', '{}', '""', '"stream":true,', '"n":2,',
  '"tools":[],', '"tool_calls":null,', '"cache_control":{},', '"max_tokens":5,', '\\u0065', ',{"role":"assistant","content":"x"}'];

test('mutated bodies: the byte path takes only what JSON.parse reads, and writes its translation', () => {
  const r = rng(99);
  const body = JSON.stringify({
    model: 'claude-haiku-4-5', max_tokens: 100, temperature: 0.2, stop: ['x'], user: 'u',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi "there"\n' }, { type: 'text', text: 'again' }] },
      { role: 'assistant', content: 'ok', tool_calls: null },
      { role: 'user', content: 'bye' },
    ],
  });
  const base = Buffer.from(body);
  let taken = 0;
  for (let i = 0; i < 20000; i++) {
    const raw = mutate(base, r, SNIPPETS);
    // compare() fails a body the byte path takes and the object path refuses (JSON.parse's refusals among them).
    if (compare(raw, `case ${i}`)) taken++;
  }
  assert.ok(taken > 1000, `${taken} mutated bodies taken`);
});

test('turns of one role are merged, empty texts and empty turns left out, system and developer messages lifted out in order', () => {
  const raw = Buffer.from(JSON.stringify({
    model: 'claude-haiku-4-5',
    messages: [
      { role: 'developer', content: 'rules' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: '' },
      { role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'b' }] },
      { role: 'system', content: [{ type: 'text', text: 'more rules' }] },
      { role: 'assistant', content: null },
      { role: 'assistant', content: 'c' },
    ],
  }));
  const got = JSON.parse(bytePath(raw)!.toString('utf8'));
  assert.equal(got, {
    model: MODEL, max_tokens: 4096,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
    ],
    system: [{ type: 'text', text: 'rules' }, { type: 'text', text: 'more rules' }],
  });
});

test("each text goes on as the client's literal: its escapes are not decoded and written again", () => {
  const raw = Buffer.from('{"model":"claude-haiku-4-5","messages":[{"role":"user","content":"caf\\u00e9 \\/ \\"q\\""}]}');
  const got = bytePath(raw)!.toString('utf8');
  assert.ok(got.includes('"text":"caf\\u00e9 \\/ \\"q\\""'), got);
  assert.is(JSON.parse(got).messages[0].content[0].text, 'café / "q"');
});

test('left to the object translation: tool calls, tool results, images, cache marks, tools, prompt-cache markers', () => {
  const bodies = [
    { messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }] },
    { messages: [{ role: 'tool', tool_call_id: 'c', content: 'done' }] },
    { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] },
    { messages: [{ role: 'user', content: 'hi', cache_control: { type: 'ephemeral' } }] },
    { messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f' } }] },
  ];
  for (const b of bodies) {
    const raw = Buffer.from(JSON.stringify({ model: 'claude-haiku-4-5', ...b }));
    assert.is(bytePath(raw), null, JSON.stringify(b));
    assert.not.ok('error' in objectPath(raw), JSON.stringify(b));
  }
  const plain = parseInferenceBody('chat', Buffer.from('{"model":"claude-haiku-4-5","messages":[{"role":"user","content":"hi"}]}')).scanned!;
  assert.is(anthropicAdapter.buildScannedCall!('chat', plain, MODEL, { streamOptions: false, promptCache: true }), null);
  assert.ok(anthropicAdapter.buildScannedCall!('chat', plain, MODEL, CAPS) !== null);
});

test.run();
