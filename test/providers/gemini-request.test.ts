import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { geminiAdapter } from '../../src/providers/gemini/adapter.js';
import { fixture } from './gemini-fixtures.js';

const caps = { streamOptions: false };
const build = (payload: Record<string, unknown>) => geminiAdapter.buildCall('chat', structuredClone(payload), 'gemini-2.5-flash', caps);
const bodyOf = (payload: Record<string, unknown>) => JSON.parse(build(payload).body as string);
const chat = (extra: Record<string, unknown>) => ({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], ...extra });

function refused(payload: Record<string, unknown>): { status: number; message: string } {
  try {
    build(payload);
  } catch (e) {
    if (isGatewayError(e)) return { status: e.status, message: e.message };
    throw e;
  }
  throw new Error('the request was not refused');
}

test('a chat body becomes a GenerateContentRequest: system and developer messages as systemInstruction, assistant as model, a data-URL image inline, generationConfig and a cleaned response schema', () => {
  const f = fixture('chat-request.json');
  assert.equal(bodyOf(f.openai), f.gemini);
});

test('tools become functionDeclarations with schemas Gemini accepts; tool calls and results become functionCall and functionResponse parts named by the call they answer', () => {
  const f = fixture('tools-request.json');
  assert.equal(bodyOf(f.openai), f.gemini);
});

test('chat goes to models/{model}:generateContent, a stream to :streamGenerateContent?alt=sse, authenticated by x-goog-api-key', () => {
  assert.is(build(chat({})).path, '/models/gemini-2.5-flash:generateContent');
  assert.is(build(chat({ stream: true, stream_options: { include_usage: true } })).path, '/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  assert.ok(!('stream' in bodyOf(chat({ stream: true }))), 'stream is in the URL, not the body');
  assert.equal(geminiAdapter.authHeaders('gm-key'), { 'x-goog-api-key': 'gm-key' });
  assert.equal([...geminiAdapter.endpoints].sort(), ['chat', 'embeddings']);
});

test('tool_choice maps to functionCallingConfig modes; max_completion_tokens wins over max_tokens; json_object asks for JSON; reasoning_effort sets the thinking budget', () => {
  const mode = (tool_choice: unknown) => bodyOf(chat({ tool_choice })).toolConfig.functionCallingConfig;
  assert.equal(mode('auto'), { mode: 'AUTO' });
  assert.equal(mode('none'), { mode: 'NONE' });
  assert.equal(mode('required'), { mode: 'ANY' });
  const b = bodyOf(chat({ max_tokens: 10, max_completion_tokens: 20, response_format: { type: 'json_object' }, reasoning_effort: 'low' }));
  assert.equal(b.generationConfig, { maxOutputTokens: 20, responseMimeType: 'application/json', thinkingConfig: { thinkingBudget: 1024 } });
  assert.is(bodyOf(chat({ stop: 'STOP' })).generationConfig.stopSequences[0], 'STOP');
  assert.ok(!('generationConfig' in bodyOf(chat({}))), 'no empty generationConfig');
});

test('a web image URL is refused with a 400 that says to send it as a data: URL; Gemini Files API URIs go as fileData', () => {
  const web = refused(chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] }));
  assert.is(web.status, 400);
  assert.match(web.message, /messages\[0\]\.content\[0\]\.image_url\.url/);
  assert.match(web.message, /data:/);
  const uri = 'https://generativelanguage.googleapis.com/v1beta/files/abc123';
  const b = bodyOf(chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: uri } }] }] }));
  assert.equal(b.contents[0].parts[0], { fileData: { fileUri: uri } });
});

test('what Gemini cannot be sent is refused with a 400 naming the field, never passed on to fail upstream', () => {
  const orphan = refused(chat({ messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_nope', content: '1' }] }));
  assert.equal([orphan.status, /call_nope/.test(orphan.message)], [400, true]);
  const badArgs = refused(chat({ messages: [{ role: 'user', content: 'x' },
    { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{not json' } }] }] }));
  assert.match(badArgs.message, /tool_calls\[0\]\.function\.arguments/);
  assert.match(refused(chat({ tools: [{ type: 'web_search' }] })).message, /tools\[0\]/);
  assert.match(refused(chat({ messages: [{ role: 'system', content: 'only a system prompt' }] })).message, /messages/);
  assert.match(refused(chat({ tool_choice: 'sometimes' })).message, /tool_choice/);
  assert.match(refused(chat({ messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] })).message, /messages\[0\]\.content\[0\]\.type/);
  // A format or an effort named like a member of every object is none: refused, not sent as a part with no type or a budget of nothing.
  for (const format of ['constructor', 'toString', '__proto__']) {
    const audio = refused(chat({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format } }] }] }));
    assert.equal([audio.status, /input_audio/.test(audio.message)], [400, true], format);
    assert.match(refused(chat({ reasoning_effort: format })).message, /reasoning_effort/);
  }
});

test('a JSON Schema with $ref cycles, oneOf and allOf is rebuilt within Gemini\'s Schema fields', () => {
  const params = {
    type: 'object', additionalProperties: false,
    properties: {
      node: { $ref: '#/definitions/node' },
      pick: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'number', exclusiveMinimum: 0 } } }] },
    },
    definitions: { node: { type: 'object', properties: { child: { $ref: '#/definitions/node' } } } },
  };
  const d = bodyOf(chat({ tools: [{ type: 'function', function: { name: 'f', parameters: params } }] })).tools[0].functionDeclarations[0];
  const text = JSON.stringify(d.parameters);
  assert.not.match(text, /additionalProperties|\$ref|definitions|exclusiveMinimum|oneOf|allOf/);
  assert.equal(d.parameters.properties.pick, { anyOf: [{ type: 'string' }, { type: 'integer' }] });
  assert.equal(d.parameters.properties.both, { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] });
  assert.is(d.parameters.properties.node.properties.child.type, 'object');
});

test.run();
