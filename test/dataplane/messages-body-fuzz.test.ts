import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { messagesBody, scannedMessages } from '../../src/dataplane/messages-body.js';
import { readMessages } from '../../src/formats/messages/request.js';
import { mutate } from '../support/json-mutate.js';
import { scanVerdict } from '../support/scan-verdict.js';
import { rng } from '../support/seeded-random.js';

// The Messages scan (dataplane/messages-body.ts) against the full parse (readMessages: JSON.parse
// and MessagesBodySchema), on bodies mutated at random (a fixed seed, so a failure repeats):
// whatever the scan accepts, the full parse accepts and reads the same way, and the bytes an
// Anthropic route is sent say exactly what the full parse read, with the route's model id. What
// the scan does not accept goes to the full parse, so refusals stay as they were; the second half
// checks that ordinary bodies, Claude Code's shapes among them, do take the scan.

const CORPUS: string[] = [
  '{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}',
  JSON.stringify({
    model: 'claude-sonnet-4-5', max_tokens: 32000, stream: true, temperature: 1, top_p: 0.9, top_k: 40,
    system: [{ type: 'text', text: 'You are Claude Code.\n"Be brief"', cache_control: { type: 'ephemeral' } }],
    metadata: { user_id: 'user_abc_account_1' }, stop_sequences: ['\n\nHuman:'],
    tools: [{ name: 'Bash', description: 'Runs a "command"', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
    tool_choice: { type: 'auto' },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'नमस्ते, fix the build' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok\n\t"1 passed"' }, { type: 'text', text: 'go on' }] },
      { role: 'system', content: 'mid-conversation note' },
    ],
    thinking: { type: 'enabled', budget_tokens: 2048 }, context_management: { edits: [] },
  }),
  '{ "model" : "m", "max_tokens" : 1e2,\n "messages" : [ { "role" : "assistant", "content" : [ ] } ], "optimize":"price", "provider":["anthropic"], "cache":"off" }',
  '{"model":"m\\u0031","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}],"metadata":{"user_id":null},"system":"s"}',
  JSON.stringify({ model: 'agent', max_tokens: 8, messages: Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `line ${i}\n\t"${'x'.repeat(900 + i)}"\\ é😀\u0001` })) }),
];
const SNIPPETS = ['"model":"x",', '"max_tokens":5,', '"max_tokens":0,', '"stream":true,', '"messages":[],', '"role":"tool",', '"role":"user",', '"type":"",', '"type":7,',
  '"content":null,', '"system":[],', '"system":[{"type":"text"}],', '"tools":[{}],', '"tools":[{"name":""}],', '"tool_choice":{},', '"metadata":{"user_id":3},',
  '"stop_sequences":[1],', '"top_k":1.5,', '"temperature":"1",', '"temperature":1e400,', '"top_p":0.5,', '"optimize":"speed",', '\\u', '\\ud800', '[', ']', '{', '}', '"', ',', ':', 'null', '\ufeff', '"rol\\u0065":"user",'];

/** The forwarded bytes, parsed. */
function forwarded(raw: Buffer, upstreamModel: string): unknown {
  const native = scannedMessages(raw, '')!.native!;
  const out = native.forward!.for(upstreamModel, false);
  return JSON.parse((Buffer.isBuffer(out) ? out : Buffer.concat(out)).toString('utf8'));
}

/** The scan reads as the full parse does, and the provider is sent what it read. True when the scan took the body. */
function agrees(raw: Buffer, where: string): boolean {
  const v = scanVerdict(() => readMessages(raw, false, ''), () => scannedMessages(raw, ''), raw, where);
  if (v === null) return false;
  if (v === 'refused') return true;
  const { fast, full } = v;
  const b = full.body;
  assert.is(fast.model, b.model, `${where}: model`);
  assert.is(fast.stream, b.stream === true, `${where}: stream`);
  assert.is(fast.maxTokens, b.max_tokens, `${where}: maxTokens`);
  assert.equal(fast.ext, full.ext, `${where}: extensions`);
  assert.equal(fast.stops, Array.isArray(b.stop_sequences) ? b.stop_sequences : [], `${where}: stop sequences`);
  assert.equal(fast.native!.payload, b, `${where}: the decoded body, on demand`);
  assert.equal(forwarded(raw, b.model as string), b, `${where}: forwarded as read`);
  assert.equal(forwarded(raw, 'claude-upstream-id'), { ...b, model: 'claude-upstream-id' }, `${where}: forwarded to another model id`);
  return true;
}

test('whatever the scan accepts, the full parse reads the same, and an Anthropic route is sent what it read (30,000 mutated bodies)', () => {
  const r = rng(31);
  let accepted = 0;
  for (let i = 0; i < 30_000; i++) {
    if (agrees(mutate(Buffer.from(CORPUS[i % CORPUS.length]), r, SNIPPETS), `case ${i}`)) accepted++;
  }
  assert.ok(accepted > 2_000, `${accepted} mutated bodies accepted`);
});

test('ordinary bodies take the scan: Claude Code\'s shapes, compact or pretty, with every string shape', () => {
  const r = rng(7);
  const word = (): string => {
    const parts = ['a', 'नमस्ते', '"', '\\', '\n', '\t', '\u0001', '😀', '\ud800', ' ', 'x'.repeat(300)];
    let s = '';
    for (let i = Math.floor(r() * 5); i > 0; i--) s += parts[Math.floor(r() * parts.length)];
    return s;
  };
  const block = (): Record<string, unknown> => {
    const k = Math.floor(r() * 5);
    if (k === 0) return { type: 'text', text: word() };
    if (k === 1) return { type: 'tool_use', id: `toolu_${word()}`, name: 'Edit', input: { path: word(), edits: [{ old: word(), new: word() }] } };
    if (k === 2) return { type: 'tool_result', tool_use_id: 't', content: r() < 0.5 ? word() : [{ type: 'text', text: word() }], is_error: r() < 0.2 };
    if (k === 3) return { type: 'document', source: { type: 'text', data: word() }, cache_control: { type: 'ephemeral' } };
    return { type: 'thinking', thinking: word(), signature: word() };
  };
  let taken = 0;
  for (let i = 0; i < 2_000; i++) {
    const body: Record<string, unknown> = {
      model: `claude-${word()}`.trimEnd() || 'claude', max_tokens: 1 + Math.floor(r() * 64000),
      messages: Array.from({ length: 1 + Math.floor(r() * 5) }, (_, j) => ({ role: j % 2 ? 'assistant' : 'user', content: r() < 0.3 ? word() : Array.from({ length: Math.floor(r() * 4) }, block) })),
    };
    if (r() < 0.5) body.system = r() < 0.5 ? word() : [{ type: 'text', text: word() }];
    if (r() < 0.3) body.stream = r() < 0.5;
    if (r() < 0.3) body.tools = [{ name: 'Read', input_schema: { type: 'object' } }, { type: 'custom', name: word() || 'w', description: word() }];
    if (r() < 0.2) body.metadata = { user_id: r() < 0.5 ? null : word() };
    if (r() < 0.2) body.thinking = { type: 'enabled', budget_tokens: 1024 };
    const raw = Buffer.from(JSON.stringify(body, null, r() < 0.3 ? 2 : undefined), 'utf8');
    if (agrees(raw, `random ${i}`)) taken++;
  }
  assert.is(taken, 2_000, 'every well-formed body takes the scan');
});

test('what the scan leaves to the full parse, which refuses what it always refused', () => {
  const base = '"max_tokens":5,"messages":[{"role":"user","content":"hi"}]';
  const refused: [string, RegExp][] = [
    [`{"model":"a",${base},"model":"b"}`, /./], // a member twice: left to the full parse, which takes the last
    [`{"model":"",${base}}`, /Invalid 'model'/],
    [`{"model":"a","messages":[{"role":"user","content":"hi"}]}`, /Invalid 'max_tokens'/],
    [`{"model":"a","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`, /Invalid 'max_tokens'/],
    [`{"model":"a","max_tokens":5,"messages":[]}`, /Invalid 'messages'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"tool","content":"x"}]}`, /Invalid 'messages.0.role'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user"}]}`, /Invalid 'messages.0.content'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user","content":[{"type":""}]}]}`, /Invalid 'messages.0.content/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user","content":5}]}`, /Invalid 'messages.0.content'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user","content":null}]}`, /Invalid 'messages.0.content'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}`, /Invalid 'messages.0.content'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text"},{}]}]}`, /Invalid 'messages.0.content'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text"},"x"]}]}`, /Invalid 'messages.0.content'/],
    [`{"model":"a","max_tokens":5,"messages":[{"role":"user","content":[{"type":"a","type":"b"}]}]}`, /./],
    [`{"model":"a",${base},"system":[{"text":"x"}]}`, /Invalid 'system/],
    [`{"model":"a",${base},"tools":[{"name":""}]}`, /Invalid 'tools.0.name'/],
    [`{"model":"a",${base},"tools":[{"name":"t","type":1}]}`, /Invalid 'tools.0.type'/],
    [`{"model":"a",${base},"tool_choice":{}}`, /Invalid 'tool_choice.type'/],
    [`{"model":"a",${base},"metadata":{"user_id":7}}`, /Invalid 'metadata/],
    [`{"model":"a",${base},"stop_sequences":["a",1]}`, /Invalid 'stop_sequences.1'/],
    [`{"model":"a",${base},"top_k":1.5}`, /Invalid 'top_k'/],
    [`{"model":"a",${base},"temperature":"1"}`, /Invalid 'temperature'/],
    [`{"model":"a",${base},"stream":null}`, /Invalid 'stream'/],
    // JSON.parse reads these as Infinity, which the schema's numbers refuse.
    [`{"model":"a",${base},"temperature":1e400}`, /Invalid 'temperature'/],
    [`{"model":"a",${base},"top_p":-1e400}`, /Invalid 'top_p'/],
    [`{"model":"a",${base},"top_k":1e400}`, /Invalid 'top_k'/],
  ];
  for (const [text, message] of refused) {
    const raw = Buffer.from(text);
    assert.is(scannedMessages(raw, ''), null, text);
    if (text.includes('"model":"b"') || text.includes('"type":"b"')) continue;
    assert.throws(() => messagesBody(raw, ''), message, text);
  }
  // Escaped spellings are left to the full parse, which reads them.
  for (const text of [`{"model":"a","max_tokens":5,"messages":[{"rol\\u0065":"user","content":"hi"}]}`,
    `{"model":"a","max_tokens":5,"messages":[{"role":"\\u0075ser","content":"hi"}]}`]) {
    assert.is(scannedMessages(Buffer.from(text), ''), null, text);
    assert.is(messagesBody(Buffer.from(text), '').model, 'a');
  }
});

test('the translation is made only when asked for, and refused then: an Anthropic route never needs it', () => {
  const raw = Buffer.from(JSON.stringify({ model: 'claude', max_tokens: 9, messages: [{ role: 'user', content: [{ type: 'search_result', source: 'x' }] }] }));
  const body = messagesBody(raw, 'context-1m-2025-08-07');
  assert.equal(body.native!.headers, { 'anthropic-beta': 'context-1m-2025-08-07' });
  assert.ok(body.native!.forward, 'sent as the client\'s bytes');
  assert.throws(() => body.payload, /Unsupported content block type 'search_result' at 'messages.0.content.0'/);
  assert.throws(() => messagesBody(raw, 'bad header\n'), /anthropic-beta/);
});

test('a body that names its model first, a model no Anthropic route serves: not scanned (only the translation reads it)', () => {
  const body = (first: boolean) => Buffer.from(first ? '{"model":"llama","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}'
    : '{"max_tokens":9,"model":"llama","messages":[{"role":"user","content":"hi"}]}');
  const asked: string[] = [];
  const native = (model: string): boolean => {
    asked.push(model);
    return model.startsWith('claude');
  };
  assert.is(messagesBody(body(true), '', native).native!.forward, null, 'decoded: no bytes kept for a native route');
  assert.equal(asked, ['llama']);
  assert.ok(messagesBody(body(false), '', native).native!.forward, 'not named first: scanned as before');
  assert.ok(messagesBody(Buffer.from('{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}'), '', native).native!.forward);
  assert.equal(messagesBody(body(true), '', native).payload, { model: 'llama', max_tokens: 9, messages: [{ role: 'user', content: 'hi' }] });
});

test.run();
