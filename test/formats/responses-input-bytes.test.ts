import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeWithLiterals } from '../../src/lib/json-literals.js';
import { parseJsonObject } from '../../src/domain/json-body.js';
import { readExtensions } from '../../src/domain/extensions.js';
import { RESPONSES_CHECK, responsesToChat } from '../../src/formats/responses/request.js';
import { writtenChat } from '../../src/formats/responses/request-bytes.js';
import { inputWalk } from '../../src/formats/responses/input-bytes.js';
import { bothWalks as sameEitherWay } from '../support/module-walks.js';
import { agentText, pick } from '../support/agent-text.js';
import { rng } from '../support/seeded-random.js';

// The chat request written from a Responses body's bytes (request-bytes.ts, input-bytes.ts)
// against the object translation (request.ts): for every body the byte path takes, the request
// it writes must read as the object translation's, and the object translation must not refuse
// the body; for bodies made only of the shapes it covers, it must take them. Random bodies, a
// fixed seed (a failure repeats).

const INPUT = new Set(['input']);

type Outcome = { chat: unknown; echo: unknown; input: unknown; ext: unknown } | { error: string };

/** What the object translation makes of the body (as responses-service.ts runs it without a stored conversation). */
function objectPath(raw: Buffer): Outcome {
  try {
    const p = parseJsonObject(raw.toString('utf8'), RESPONSES_CHECK);
    const ext = readExtensions(p);
    const r = responsesToChat(p, []);
    return { chat: r.chat, echo: r.echo, input: r.input, ext };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The byte path's request, read back, beside the object path's; false when the byte path leaves the body. */
function compare(raw: Buffer, label: string): boolean {
  const w = writtenChat(raw);
  if (w === null) return false;
  const want = objectPath(raw);
  assert.not.ok('error' in want, `${label}: the byte path took a body the object path refuses (${'error' in want ? want.error : ''})`);
  const o = want as { chat: Record<string, unknown>; echo: unknown; input: unknown; ext: unknown };
  assert.equal(JSON.parse(w.bytes.toString('utf8')), o.chat, `${label}: request`);
  assert.equal(w.echo, o.echo, `${label}: echo`);
  // What the data plane reads of the body (responses-service.ts): the model, max tokens, stream, the extensions.
  assert.is(w.body.model, o.chat.model, `${label}: model`);
  assert.is(w.body.max_output_tokens ?? null, o.chat.max_tokens ?? null, `${label}: max tokens`);
  assert.is(w.body.stream === true, o.chat.stream === true, `${label}: stream`);
  assert.equal(w.ext, o.ext, `${label}: extensions`);
  assert.equal(w.input(), o.input, `${label}: input`);
  assert.is(w.bytes.toString('utf8', w.modelStart, w.modelEnd), JSON.stringify(o.chat.model), `${label}: model span`);
  // Another provider reads the object translation of the literals' decode: the same request.
  const d = decodeWithLiterals(raw, INPUT, 256, 128);
  if (d !== null) assert.equal(d.literals.expand(responsesToChat(d.body, []).chat), o.chat, `${label}: literal decode`);
  return true;
}


/** A random item; `covered` is cleared when it is of a shape the byte path leaves to the object translation. */
function randomItem(r: () => number, covered: { yes: boolean }): unknown {
  const k = r();
  if (k < 0.3) {
    const role = r() < 0.03 ? pick(r, ['tool', 'robot', 'User']) : pick(r, ['user', 'assistant', 'system', 'developer']);
    if (!['user', 'assistant', 'system', 'developer'].includes(role)) covered.yes = false;
    let content: unknown;
    if (r() < 0.4) content = agentText(r);
    else {
      const parts: unknown[] = [];
      const n = Math.floor(r() * 4);
      for (let j = 0; j < n; j++) {
        if (r() < 0.04) {
          covered.yes = false;
          parts.push(pick(r, [{ type: 'input_image', image_url: 'https://x/y.png' }, { type: 'refusal', refusal: 'no' }, { type: 'input_text' }, 'text']));
        } else {
          parts.push({ type: role === 'assistant' ? 'output_text' : pick(r, ['input_text', 'output_text']), text: agentText(r), ...(r() < 0.2 ? { annotations: [] } : {}) });
        }
      }
      content = parts;
    }
    const item: Record<string, unknown> = r() < 0.8 ? { type: 'message', role, content } : { role, content };
    if (r() < 0.1) item.id = `msg_${Math.floor(r() * 1e6)}`;
    if (r() < 0.03) {
      covered.yes = false;
      delete item.content;
    }
    return item;
  }
  if (k < 0.6) {
    const item: Record<string, unknown> = { type: 'function_call', call_id: `call_${Math.floor(r() * 1e6)}`, name: pick(r, ['shell', 'read_file', 'apply_patch']), arguments: JSON.stringify({ cmd: agentText(r) }) };
    if (r() < 0.1) item.id = 'fc_1';
    if (r() < 0.03) {
      covered.yes = false;
      item.call_id = pick(r, ['', 7, null]);
    }
    return item;
  }
  if (k < 0.85) {
    const item: Record<string, unknown> = { type: 'function_call_output', call_id: `call_${Math.floor(r() * 1e6)}`, output: agentText(r) };
    if (r() < 0.04) {
      covered.yes = false;
      item.output = r() < 0.5 ? [{ type: 'input_text', text: agentText(r) }] : 5;
    }
    return item;
  }
  if (k < 0.95) return { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: agentText(r) };
  covered.yes = false;
  return pick(r, [{ type: 'item_reference', id: 'x' }, { type: 'web_search_call' }, 'a string', null, [1], { type: 7 }]);
}

/** JSON text of `v`: now and then pretty, with keys repeated, or with other escapes than JSON.stringify's. */
function written(v: Record<string, unknown>, r: () => number): Buffer {
  let s = JSON.stringify(v, null, r() < 0.2 ? 2 : undefined);
  if (r() < 0.2) s = s.replace(/é/g, '\\u00e9').replace(/\//g, '\\/');
  if (r() < 0.1) s = s.replace('{', '{"input":"overwritten","instructions":7,');
  // A member name spelled with an escape: the scan leaves the items to JavaScript, and the object translation takes the body.
  if (r() < 0.05) s = s.replace('"role"', '"r\\u006fle"');
  // Numbers as JSON.stringify does not write them, and ones JSON.parse reads as Infinity.
  s = s.replace(/"#(-?[0-9][0-9.eE+-]*)"/g, '$1');
  return Buffer.from(s, 'utf8');
}

test('random Responses bodies: what the byte path writes reads as the object translation; it takes every body of the shapes it covers', () => {
  const r = rng(1117);
  let taken = 0;
  let coveredBodies = 0;
  let plainTaken = 0;
  for (let i = 0; i < 6000; i++) {
    const covered = { yes: true };
    const input: unknown[] = [];
    const n = Math.floor(r() * 12);
    for (let j = 0; j < n; j++) input.push(randomItem(r, covered));
    const body: Record<string, unknown> = { model: pick(r, ['gpt-4o-mini', 'm/é', 'a"b']), input };
    if (r() < 0.7) body.instructions = pick(r, [null, '', agentText(r), agentText(r)]);
    if (r() < 0.3) body.stream = r() < 0.5;
    if (r() < 0.5) body.store = r() < 0.2;
    if (r() < 0.3) body.tools = [{ type: 'function', name: 'shell', description: agentText(r), parameters: { type: 'object' } }, { type: 'web_search' }];
    if (r() < 0.2) body.temperature = pick(r, [0.2, 3, '1']);
    if (r() < 0.1) body.max_output_tokens = 100;
    // The members around the input an API client sends, valid and not, read from their spans when
    // they are all there is; a string "#…" is written as the number it spells (see written).
    if (r() < 0.2) body.temperature = pick(r, [0, -0, 2, 0.7, 2.0000001, -1, null, '#1.0', '#2e0', '#-0.0', '#1e400', '#0.5E-1']);
    if (r() < 0.15) body.top_p = pick(r, [0.9, 1, 0, 1.5, null, 'x', '#1.00', '#1e-400', '#1e400']);
    if (r() < 0.15) body.max_output_tokens = pick(r, [1, 4096, 0, -5, 1.5, null, '8', '#1.0e3', '#1e400']);
    if (r() < 0.1) body.stream = pick(r, [null, 1, 'true']);
    if (r() < 0.1) body.store = pick(r, [null, 0, 'false']);
    if (r() < 0.05) body.user = pick(r, ['u1', 5]);
    if (r() < 0.05) body.metadata = pick(r, [{ a: 'b' }, null]);
    if (r() < 0.05) body.instructions = pick(r, ['with "quotes" and \\ é\n', 3, true]);
    if (r() < 0.05) body.cache = pick(r, ['off', 'x', null]);
    if (r() < 0.03) body.conversation = pick(r, ['conv_1', null, false]);
    if (r() < 0.1) body.reasoning = { effort: 'high', summary: pick(r, ['auto', 'detailed']) };
    if (r() < 0.05) body.background = true;
    if (r() < 0.05) body.previous_response_id = 'resp_1';
    if (r() < 0.05) body.optimize = pick(r, ['price', 'cheap']);
    if (r() < 0.05) body.text = { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } };
    const raw = written(body, r);
    const got = compare(raw, `case ${i}`);
    if (got) taken++;
    if (got && !Object.keys(body).some((k) => DECODED.has(k))) plainTaken++;
    const plainly = covered.yes && !raw.includes('"input":"overwritten"') && !raw.includes('\\u006fle') && body.previous_response_id === undefined;
    if (plainly && !got && !('error' in objectPath(raw))) {
      assert.unreachable(`case ${i}: a body of covered shapes was left to the object path: ${raw.toString('utf8').slice(0, 400)}`);
    }
    if (plainly) coveredBodies++;
  }
  assert.ok(taken > 1000, `${taken} bodies taken by the byte path`);
  assert.ok(coveredBodies > 1000, `${coveredBodies} bodies of covered shapes`);
  assert.ok(plainTaken > 300, `${plainTaken} bodies taken with their members around the input read from spans`);
});

/** The request written with the input walked in the module and in JavaScript: the same bytes, or both null. */
function bothWalks(raw: Buffer, label: string): boolean {
  const { walked, inModule, inJs } = sameEitherWay(inputWalk, () => writtenChat(raw), label);
  if (inModule !== null && inJs !== null) assert.equal(inModule.input(), inJs.input(), `${label}: input`);
  return walked;
}

test('random inputs: the module\'s walk writes the bytes the walk in JavaScript writes, or leaves the body to it', () => {
  const r = rng(4711);
  let walked = 0;
  for (let i = 0; i < 4000; i++) {
    const covered = { yes: true };
    // Four items at least: fewer are walked in JavaScript alone.
    const input: unknown[] = [];
    const n = 4 + Math.floor(r() * 10);
    for (let j = 0; j < n; j++) input.push(randomItem(r, covered));
    // Outputs given as text parts too, now and then.
    for (const it of input as Record<string, unknown>[]) {
      if (it?.type === 'function_call_output' && r() < 0.3) it.output = [{ type: 'input_text', text: agentText(r) }, ...(r() < 0.5 ? [{ type: 'input_text', text: 'é' }] : [])];
    }
    const body: Record<string, unknown> = { model: 'gpt-4o-mini', input };
    if (r() < 0.5) body.instructions = agentText(r);
    if (bothWalks(written(body, r), `case ${i}`)) walked++;
  }
  assert.ok(walked > 1000, `${walked} inputs walked in the module`);
});

test('every kind of item the module walks: the same request as the walk in JavaScript and the object translation', () => {
  const body = {
    model: 'gpt-4o-mini', instructions: 'sys',
    input: [
      { type: 'message', role: 'developer', content: 'dev' },
      { role: 'system', content: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }] },
      { type: 'message', role: 'user', content: [] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'one' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'one' }, { type: 'output_text', text: 'two' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '' }] },
      { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"cmd":"ls"}' },
      { type: 'reasoning', id: 'rs', summary: [] },
      { type: 'function_call', call_id: 'c2', name: 'shell', arguments: '' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'x' }, { type: 'input_text', text: 'y' }] },
      { type: 'function_call_output', call_id: 'c2', output: 'done' },
      { type: 'message', role: 'assistant', content: 'said' },
      { type: 'function_call', call_id: 'c3', name: 'read', arguments: '{}' },
      { type: 'message', role: 'assistant', content: '' },
      { type: 'function_call_output', call_id: 'c3', output: [] },
      { type: 'message', role: 'assistant', content: '' },
    ],
  };
  const raw = Buffer.from(JSON.stringify(body));
  assert.ok(bothWalks(raw, 'kinds'), 'walked in the module');
  assert.ok(compare(raw, 'kinds'));
});

/** Members whose presence has request-bytes.ts read the members around the input as objects. */
const DECODED = new Set(['tools', 'tool_choice', 'text', 'metadata', 'parallel_tool_calls', 'user', 'previous_response_id', 'reasoning',
  'background', 'conversation', 'prompt', 'optimize', 'provider', 'data_policy', 'upstream_key', 'cache', 'guardrails']);

test('golden Responses requests: where the byte path takes one, it writes the golden chat body', () => {
  const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/responses/', import.meta.url));
  const cases = JSON.parse(readFileSync(`${FIXTURES}request-cases.json`, 'utf8')) as { name: string; responses: Record<string, unknown>; chat: unknown }[];
  let taken = 0;
  for (const c of cases) {
    const w = writtenChat(Buffer.from(JSON.stringify(c.responses)));
    if (w === null) continue;
    taken++;
    assert.equal(JSON.parse(w.bytes.toString('utf8')), c.chat, c.name);
  }
  // Images are left to the object translation; every other golden case is taken.
  const covered = cases.filter((c) => !JSON.stringify(c.responses).includes('input_image')).length;
  assert.is(taken, covered, `${taken} of ${cases.length} taken`);
});

test('a Codex turn: calls after an assistant message join it, an empty assistant message takes null content, reasoning between them changes nothing', () => {
  const long = 'x'.repeat(400);
  const body = {
    model: 'gpt-5-codex', instructions: long, store: false, stream: true,
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'sandbox: on' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }, { type: 'input_text', text: long }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: long },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '' }] },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"command":["ls"]}' },
      { type: 'function_call', call_id: 'c2', name: 'shell', arguments: long },
      { type: 'function_call_output', call_id: 'c1', output: long },
      { type: 'function_call_output', call_id: 'c2', output: 'ok' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
    ],
  };
  const w = writtenChat(Buffer.from(JSON.stringify(body)))!;
  assert.ok(w !== null);
  assert.equal(JSON.parse(w.bytes.toString('utf8')), {
    model: 'gpt-5-codex',
    messages: [
      { role: 'system', content: long },
      { role: 'system', content: 'sandbox: on' },
      { role: 'user', content: [{ type: 'text', text: 'fix it' }, { type: 'text', text: long }] },
      { role: 'assistant', content: null, tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'shell', arguments: '{"command":["ls"]}' } },
        { id: 'c2', type: 'function', function: { name: 'shell', arguments: long } },
      ] },
      { role: 'tool', tool_call_id: 'c1', content: long },
      { role: 'tool', tool_call_id: 'c2', content: 'ok' },
      { role: 'assistant', content: 'done' },
    ],
    stream: true,
    stream_options: { include_usage: true },
  });
});


test('parts on both sides of an output given as parts: each message keeps its own (their records are read in place, the output\'s scanned apart)', () => {
  const body = {
    model: 'gpt-5-codex', store: false,
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }, { type: 'input_text', text: 'second' }] },
      { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'out-a' }, { type: 'input_text', text: 'out-b' }, { type: 'input_text', text: 'out-c' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'third' }, { type: 'input_text', text: 'fourth' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
    ],
  };
  const w = writtenChat(Buffer.from(JSON.stringify(body)));
  assert.ok(w !== null);
  assert.equal(JSON.parse(w!.bytes.toString('utf8')).messages, [
    { role: 'user', content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'out-aout-bout-c' },
    { role: 'user', content: [{ type: 'text', text: 'third' }, { type: 'text', text: 'fourth' }] },
    { role: 'assistant', content: 'done' },
  ]);
  assert.equal(JSON.parse(w!.bytes.toString('utf8')).messages, responsesToChat(JSON.parse(JSON.stringify(body)), []).chat.messages);
});

test.run();
