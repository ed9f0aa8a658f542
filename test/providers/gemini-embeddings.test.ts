import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { geminiAdapter } from '../../src/providers/gemini/adapter.js';
import { fixture } from './gemini-fixtures.js';

const caps = { streamOptions: false };

test('embeddings go to models/{model}:batchEmbedContents, one request per input naming the model, dimensions as outputDimensionality', () => {
  const f = fixture('embeddings.json');
  const call = geminiAdapter.buildCall('embeddings', structuredClone(f.openai), 'gemini-embedding-001', caps);
  assert.is(call.path, '/models/gemini-embedding-001:batchEmbedContents');
  assert.equal(JSON.parse(call.body as string), f.gemini);
  const one = geminiAdapter.buildCall('embeddings', { model: 'x', input: 'solo' }, 'gemini-embedding-001', caps);
  assert.equal(JSON.parse(one.body as string).requests.length, 1);
});

test('token-id inputs are refused with a 400: Gemini embeds text', () => {
  try {
    geminiAdapter.buildCall('embeddings', { model: 'x', input: [[1, 2, 3]] }, 'gemini-embedding-001', caps);
    assert.unreachable('not refused');
  } catch (e) {
    assert.ok(isGatewayError(e) && e.status === 400 && /input\[0\]/.test(e.message), String(e));
  }
});

test('the answer becomes an OpenAI embeddings list, floats by default, with no usage (the gateway estimates it)', () => {
  const f = fixture('embeddings.json');
  const out = JSON.parse(String(geminiAdapter.readAnswer!('embeddings', Buffer.from(JSON.stringify(f.answer)), 'application/json', '', 'gemini-embedding-001').body));
  assert.equal(out, {
    object: 'list', model: 'gemini-embedding-001',
    data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5, 0.125] }, { object: 'embedding', index: 1, embedding: [1, 0, -1] }],
  });
});

test('encoding_format base64 gives little-endian float32 bytes in base64, as OpenAI sends them', () => {
  const f = fixture('embeddings.json');
  const out = JSON.parse(String(geminiAdapter.readAnswer!('embeddings', Buffer.from(JSON.stringify(f.answer)), 'application/json', 'base64', 'gemini-embedding-001').body));
  const b = Buffer.from(out.data[0].embedding, 'base64');
  assert.equal([b.readFloatLE(0), b.readFloatLE(4), b.readFloatLE(8), b.length], [0.25, -0.5, 0.125, 12]);
});

test.run();
