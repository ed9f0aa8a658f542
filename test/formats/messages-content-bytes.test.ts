import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readMessages, translateMessages } from '../../src/formats/messages/request.js';
import { writtenMessagesChat } from '../../src/formats/messages/request-bytes.js';
import { conversationWalk } from '../../src/formats/messages/content-bytes.js';
import { bothWalks as sameEitherWay } from '../support/module-walks.js';
import { estimatePromptTokens } from '../../src/billing/token-estimate.js';
import { agentText, pick } from '../support/agent-text.js';
import { rng } from '../support/seeded-random.js';

// The chat request written from a Messages body's bytes (request-bytes.ts, content-bytes.ts)
// against the object translation (request.ts): for every body the byte path takes, the request it
// writes must read as the object translation's, and the object translation must not refuse the
// body; for bodies made only of the shapes it covers, it must take them. Random bodies, a fixed
// seed (a failure repeats).

type Outcome = { chat: Record<string, unknown> } | { error: string };

function objectPath(raw: Buffer): Outcome {
  try {
    return { chat: translateMessages(readMessages(raw)) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Bodies whose prompt estimate the byte path read off the spans (compare). */
let estimatedOffSpans = 0;

function compare(raw: Buffer, label: string): boolean {
  const w = writtenMessagesChat(raw, true);
  if (w === null) return false;
  const want = objectPath(raw);
  assert.not.ok('error' in want, `${label}: the byte path took a body the object path refuses (${'error' in want ? want.error : ''})`);
  const chat = (want as { chat: Record<string, unknown> }).chat;
  assert.equal(JSON.parse(w.bytes.toString('utf8')), chat, `${label}: request`);
  // What the data plane reads of the members around the conversation, as the full parse reads them.
  const read = readMessages(raw);
  const b = read.body;
  assert.is(w.body.model, b.model, `${label}: model`);
  assert.is(w.body.max_tokens, b.max_tokens, `${label}: max_tokens`);
  assert.is(w.body.stream === true, b.stream === true, `${label}: stream`);
  const stops = (v: unknown): unknown => (Array.isArray(v) ? v : []);
  assert.equal(stops(w.body.stop_sequences), stops(b.stop_sequences), `${label}: stop sequences`);
  assert.equal(w.ext, read.ext, `${label}: extensions`);
  assert.is(w.bytes.toString('utf8', w.modelStart, w.modelEnd), JSON.stringify(chat.model), `${label}: model span`);
  // message_start's estimate, where it is read off the spans, is the translation's.
  if (w.estimate !== null) {
    estimatedOffSpans++;
    assert.is(w.estimate, estimatePromptTokens('chat', chat), `${label}: prompt estimate`);
  }
  return true;
}


/** A random block for `role`; `covered` is cleared when it is of a shape the byte path leaves to the object translation. */
function block(r: () => number, role: string, covered: { yes: boolean }): unknown {
  const k = r();
  if (r() < 0.03) {
    covered.yes = false;
    return pick(r, [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }, { type: 'document', source: {} }, { type: 'text', text: 5 }, 'text', { text: 'no type' }]);
  }
  const cache = r() < 0.1 ? { cache_control: { type: 'ephemeral' } } : {};
  if (k < 0.4 || role === 'system') return { type: 'text', text: agentText(r), ...cache };
  if (k < 0.5) return pick(r, [{ type: 'thinking', thinking: agentText(r), signature: 'sig' }, { type: 'redacted_thinking', data: 'abc' }]);
  if (role === 'assistant') {
    const b: Record<string, unknown> = { type: 'tool_use', id: `toolu_${Math.floor(r() * 1e6)}`, name: pick(r, ['Bash', 'Read', 'Edit']) };
    const i = r();
    if (i < 0.7) b.input = { command: agentText(r), n: pick(r, [1, 2.5, -3, 1e21]), nested: { list: [true, null, agentText(r)] } };
    else if (i < 0.8) b.input = null;
    else if (i < 0.85) {
      covered.yes = false;
      b.input = pick(r, [[1], 'x', 3]);
    }
    return b;
  }
  const result: Record<string, unknown> = { type: 'tool_result', tool_use_id: `toolu_${Math.floor(r() * 1e6)}`, ...cache };
  const c = r();
  if (c < 0.5) result.content = agentText(r);
  else if (c < 0.8) result.content = [{ type: 'text', text: agentText(r) }, ...(r() < 0.5 ? [{ type: 'text', text: agentText(r) }] : [])];
  else if (c < 0.85) {
    covered.yes = false;
    result.content = pick(r, [null, 5, [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } }]]);
  }
  if (r() < 0.3) result.is_error = pick(r, [true, false, 'yes']);
  return result;
}

function message(r: () => number, covered: { yes: boolean }): unknown {
  const role = r() < 0.03 ? (covered.yes = false, pick(r, ['tool', 'User'])) : pick(r, ['user', 'assistant', 'user', 'assistant', 'system']);
  if (r() < 0.25) return { role, content: agentText(r) };
  const blocks: unknown[] = [];
  const n = Math.floor(r() * 4);
  for (let j = 0; j < n; j++) blocks.push(block(r, role, covered));
  return { role, content: blocks };
}

/** The request's own system prompt: a string, text blocks (empty ones included), or now and then a shape the byte path leaves. */
function system(r: () => number, covered: { yes: boolean }): unknown {
  const k = r();
  if (k < 0.35) return agentText(r);
  if (k < 0.6) return [{ type: 'text', text: agentText(r), cache_control: { type: 'ephemeral' } }, { type: 'text', text: agentText(r) }];
  if (k < 0.7) return [{ type: 'text', text: agentText(r) }];
  if (k < 0.9) return pick(r, ['', [], [{ type: 'text', text: '' }], [{ type: 'text', text: '' }, { type: 'text', text: '' }], [{ type: 'text', text: '', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'x' }]]);
  covered.yes = false;
  return pick(r, [5, null, { text: 'x' }, [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }], [{ type: 'text', text: 5 }], ['text'], [{ text: 'no type' }]]);
}

function written(v: Record<string, unknown>, r: () => number): Buffer {
  let s = JSON.stringify(v, null, r() < 0.2 ? 2 : undefined);
  // Spellings of numbers JSON.stringify does not write: another form of the same value, and one JSON.parse reads as Infinity.
  if (r() < 0.05) s = s.replace('"max_tokens":1024', pick(r, ['"max_tokens":1024.0', '"max_tokens":1.024e3', '"max_tokens":10240e-1']));
  if (r() < 0.05) s = s.replace(/"(temperature|top_p|top_k)":[^,}]+/, pick(r, ['"$1":1e400', '"$1":-0.0', '"$1":5E-1']));
  if (r() < 0.2) s = s.replace(/é/g, '\\u00e9').replace(/\//g, '\\/');
  // A member name spelled with an escape: the scan leaves the messages to JavaScript, and the object translation takes the body.
  if (r() < 0.05) s = s.replace('"role"', '"r\\u006fle"');
  return Buffer.from(s, 'utf8');
}

test('random Messages bodies: what the byte path writes reads as the object translation; it takes every body of the shapes it covers', () => {
  const r = rng(2027);
  let taken = 0;
  let coveredBodies = 0;
  for (let i = 0; i < 4000; i++) {
    const covered = { yes: true };
    const messages: unknown[] = [];
    const n = 1 + Math.floor(r() * 8);
    for (let j = 0; j < n; j++) messages.push(message(r, covered));
    const body: Record<string, unknown> = { model: pick(r, ['gpt-4o-mini', 'm/é', 'a"b']), max_tokens: 1024, messages };
    if (r() < 0.6) body.system = system(r, covered);
    if (r() < 0.3) body.stream = r() < 0.5;
    if (r() < 0.3) body.tools = [{ name: 'Bash', description: agentText(r), input_schema: { type: 'object' } }];
    if (r() < 0.1) body.tools = [{ type: 'web_search_20250305', name: 'web_search' }];
    if (r() < 0.2) body.tool_choice = pick(r, [{ type: 'auto' }, { type: 'any', disable_parallel_tool_use: true }, { type: 'bogus' }]);
    if (r() < 0.1) body.stop_sequences = ['END'];
    if (r() < 0.1) body.metadata = { user_id: 'u1' };
    if (r() < 0.05) body.temperature = '1';
    // The members around the conversation an API client sends, valid and not, and members the translation drops.
    if (r() < 0.2) body.temperature = pick(r, [0.7, 1, 0, -0, 1e-7, 2.5e10, -1, null]);
    if (r() < 0.15) body.top_p = pick(r, [0.9, 1, 0.12345678901234567, 'x']);
    if (r() < 0.1) body.top_k = pick(r, [5, 0, 1.5, -3]);
    if (r() < 0.1) body.stop_sequences = pick(r, [[], ['a', 'b\n"c"'], ['é'], [1], 'x', null]);
    if (r() < 0.05) body.max_tokens = pick(r, [1, 0, 2.5, '5', null, 1e21]);
    if (r() < 0.05) body.stream = pick(r, [null, 'true', 1]);
    if (r() < 0.1) body[pick(r, ['thinking', 'service_tier', 'container'])] = pick(r, [{ type: 'enabled', budget_tokens: 1024 }, 'auto', null]);
    if (r() < 0.05) body.optimize = pick(r, ['price', 'cheap']);
    if (r() < 0.03) body.messages = [];
    const raw = written(body, r);
    const got = compare(raw, `case ${i}`);
    if (got) taken++;
    const plainly = covered.yes && !raw.includes('\\u006fle') && (body.messages as unknown[]).length > 0;
    if (plainly && !got && !('error' in objectPath(raw))) {
      assert.unreachable(`case ${i}: a body of covered shapes was left to the object path: ${raw.toString('utf8').slice(0, 400)}`);
    }
    if (plainly) coveredBodies++;
  }
  assert.ok(taken > 1000, `${taken} bodies taken by the byte path`);
  assert.ok(coveredBodies > 1000, `${coveredBodies} bodies of covered shapes`);
});

/** The request written with the conversation walked in the module and in JavaScript: the same bytes, or both null. */
function bothWalks(raw: Buffer, label: string): boolean {
  const { walked, inModule, inJs } = sameEitherWay(conversationWalk, () => writtenMessagesChat(raw), label);
  if (inModule !== null && inJs !== null) assert.is(inModule.modelStart, inJs.modelStart, `${label}: model span`);
  return walked;
}

test('random conversations: the module\'s walk writes the bytes the walk in JavaScript writes, or leaves the body to it', () => {
  const r = rng(31337);
  let walked = 0;
  let stringResults = 0;
  for (let i = 0; i < 4000; i++) {
    const covered = { yes: true };
    const messages: unknown[] = [];
    // Four messages at least: fewer are walked in JavaScript alone.
    const n = 4 + Math.floor(r() * 9);
    for (let j = 0; j < n; j++) messages.push(message(r, covered));
    // Half the bodies have their tool results as strings, the rest as the generator makes them (parts too).
    if (r() < 0.5) {
      for (const m of messages as { content: unknown }[]) {
        if (!Array.isArray(m.content)) continue;
        for (const b of m.content as Record<string, unknown>[]) if (b?.type === 'tool_result' && Array.isArray(b.content)) b.content = agentText(r);
      }
      stringResults++;
    }
    const body: Record<string, unknown> = { model: 'gpt-4o-mini', max_tokens: 64, messages };
    if (r() < 0.5) body.system = system(r, covered);
    if (bothWalks(written(body, r), `case ${i}`)) walked++;
  }
  assert.ok(stringResults > 1000 && walked > 900, `${walked} conversations walked in the module`);
});

test('every kind of block the module walks: the same request as the walk in JavaScript and the object translation', () => {
  const body = {
    model: 'gpt-4o-mini', max_tokens: 100,
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'be "brief"' }, { type: 'text', text: 'é\n' }] },
      { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'redacted_thinking', data: 'x' }, { type: 'text', text: 'two' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'a' }, { type: 'text', text: 'b' },
        { type: 'tool_use', id: 't1', name: 'Read', input: { path: '/a "b"', n: 3, deep: [null, true, { k: 'v' }] } },
        { type: 'tool_use', id: 't2', name: 'Bash', input: null }, { type: 'tool_use', id: 't3', name: 'Ls' }] },
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'p1' }, { type: 'text', text: 'p2', cache_control: { type: 'ephemeral' } }] },
        { type: 'tool_result', tool_use_id: 't2', content: 'failed', is_error: true },
        { type: 'tool_result', tool_use_id: 't3' },
        { type: 'tool_result', tool_use_id: 't4', content: [], is_error: false },
        { type: 'text', text: 'next' }] },
      { role: 'assistant', content: [] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't5', name: 'X', input: {} }] },
      { role: 'user', content: 'plain' },
    ],
  };
  const raw = Buffer.from(JSON.stringify(body));
  assert.ok(bothWalks(raw, 'kinds'), 'walked in the module');
  assert.ok(compare(raw, 'kinds'));
});

test('a conversation past the module\'s room is walked in JavaScript, to the same request', () => {
  // 3,000 messages: within the scan's room for their records, past the walk's for them and its commands.
  const messages = Array.from({ length: 3000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `t${i}` }));
  const raw = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 10, messages }));
  assert.not.ok(bothWalks(raw, 'long'), 'left to JavaScript');
  assert.ok(compare(raw, 'long'));
  const shorter = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 10, messages: messages.slice(0, 500) }));
  assert.ok(bothWalks(shorter, 'shorter'), 'walked in the module');
});

test('small requests of string messages: the prompt estimate read off the spans is the translation\'s', () => {
  const r = rng(909);
  const text = (): string => pick(r, ['', 'hello', 'é', '"quoted"\n\ttabbed', '\\', 'x'.repeat(Math.floor(r() * 50)), '日本語', agentText(r)]);
  estimatedOffSpans = 0;
  let blocks = 0;
  for (let i = 0; i < 2000; i++) {
    const messages: unknown[] = [];
    const n = 1 + Math.floor(r() * 5);
    for (let j = 0; j < n; j++) messages.push({ role: pick(r, ['user', 'assistant', 'user', 'system']), content: r() < 0.05 ? [{ type: 'text', text: text() }] : text() });
    const body: Record<string, unknown> = { model: 'gpt-4o-mini', max_tokens: 100, messages };
    if (r() < 0.6) body.system = r() < 0.1 ? [{ type: 'text', text: text() }] : text();
    if (r() < 0.1) body.tools = [{ name: 'Bash', description: text(), input_schema: { type: 'object' } }];
    if (r() < 0.1) body.temperature = 0.5;
    const raw = written(body, r);
    const before = estimatedOffSpans;
    if (!compare(raw, `case ${i}`)) continue;
    const strings = messages.every((m) => typeof (m as { content: unknown }).content === 'string') && !Array.isArray(body.system) && body.tools === undefined;
    assert.is(estimatedOffSpans > before, strings, `case ${i}: read off the spans exactly when every message is a string and there are no tools`);
    if (!strings) blocks++;
  }
  assert.ok(estimatedOffSpans > 1000, `${estimatedOffSpans} estimates read off the spans`);
  assert.ok(blocks > 100, `${blocks} bodies with blocks`);
});

test('mutated bodies: the byte path takes only what JSON.parse reads within the nesting limit, and writes its translation', () => {
  const r = rng(4242);
  const base = JSON.stringify({
    model: 'gpt-4o-mini', max_tokens: 100, system: 'be brief',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi "there"\n' }, { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'ok' }] }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Bash', input: { a: [1, { b: null }] } }] },
    ],
  });
  const alphabet = '{}[]",:\\ \nab01-.eE';
  let taken = 0;
  for (let i = 0; i < 20000; i++) {
    const chars = [...base];
    const edits = 1 + Math.floor(r() * 3);
    for (let k = 0; k < edits; k++) {
      const at = Math.floor(r() * chars.length);
      const op = r();
      if (op < 0.4) chars[at] = alphabet[Math.floor(r() * alphabet.length)];
      else if (op < 0.7) chars.splice(at, 1);
      else chars.splice(at, 0, alphabet[Math.floor(r() * alphabet.length)]);
    }
    const raw = Buffer.from(chars.join(''), 'utf8');
    if (writtenMessagesChat(raw) === null) continue;
    taken++;
    let parsed = true;
    try {
      JSON.parse(raw.toString('utf8'));
    } catch {
      parsed = false;
    }
    assert.ok(parsed, `case ${i}: taken but not JSON: ${raw.toString('utf8')}`);
    compare(raw, `case ${i}`);
  }
  assert.ok(taken > 1000, `${taken} mutated bodies taken`);
});

test('nesting inside a block: the byte path takes a body exactly when the object translation does not refuse it for its depth', () => {
  const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
  const at = (levels: number): Buffer => Buffer.from(JSON.stringify({
    model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: nested(levels) }] }],
  }));
  const seen = new Set<boolean>();
  for (let levels = 116; levels <= 128; levels++) {
    const raw = at(levels);
    const taken = writtenMessagesChat(raw) !== null;
    assert.is(taken, !('error' in objectPath(raw)), `${levels} levels`);
    if (taken) compare(raw, `${levels} levels`);
    seen.add(taken);
  }
  assert.is(seen.size, 2, 'both sides of the limit');
});

test('a user message of 90 texts between 30 tool results, twice: its texts joined after the results, as the object translation has it', () => {
  const content = Array.from({ length: 120 }, (_, i) => (i % 4 === 3
    ? { type: 'tool_result', tool_use_id: `t${i}`, content: [{ type: 'text', text: `r${i}` }, { type: 'text', text: 'more' }] }
    : { type: 'text', text: `words ${i}` }));
  const body = { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content }, { role: 'assistant', content: 'ok' }, { role: 'user', content }] };
  assert.ok(compare(Buffer.from(JSON.stringify(body)), 'many texts'));
});

test("a Claude Code turn: tool results before the user's words, errors said in words, thinking left out, inputs as JSON.stringify writes them", () => {
  const long = 'const x = "y";\n'.repeat(100);
  const body = {
    model: 'gpt-4o-mini', max_tokens: 4096, stream: true,
    system: [{ type: 'text', text: 'You are Claude Code.' }, { type: 'text', text: long, cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/a.ts', limit: 2e3 } }, { type: 'tool_use', id: 't2', name: 'Bash' }] },
      { role: 'user', content: [{ type: 'text', text: 'and this' }, { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: long }] },
        { type: 'tool_result', tool_use_id: 't2', content: 'no such file', is_error: true }] },
    ],
  };
  // Pretty, so the input's spelling is not JSON.stringify's: the arguments are.
  const w = writtenMessagesChat(Buffer.from(JSON.stringify(body, null, 2)))!;
  assert.ok(w !== null);
  assert.equal(JSON.parse(w.bytes.toString('utf8')), {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: `You are Claude Code.\n\n${long}` },
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: 'Reading.', tool_calls: [
        { id: 't1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/a.ts","limit":2000}' } },
        { id: 't2', type: 'function', function: { name: 'Bash', arguments: '{}' } },
      ] },
      { role: 'tool', tool_call_id: 't1', content: long },
      { role: 'tool', tool_call_id: 't2', content: 'Error: no such file' },
      { role: 'user', content: 'and this' },
    ],
    max_tokens: 4096,
    stream: true,
    stream_options: { include_usage: true },
  });
});

test.run();
