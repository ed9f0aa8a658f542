// Sarvam's speech request: the language code told from the caller's `language` or from the
// text's script. A language named like a member of every object ("constructor") is no language.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sarvamAdapter } from '../../src/providers/sarvam/adapter.js';

const caps = { streamOptions: false };
const speech = (payload: Record<string, unknown>) =>
  JSON.parse(sarvamAdapter.buildCall('speech', { input: 'नमस्ते', voice: 'shubh', ...payload }, 'bulbul:v3', caps).body as string);

test('a known language is Sarvam\'s code; any other name is told from the text\'s script', () => {
  assert.is(speech({ language: 'ta' }).target_language_code, 'ta-IN');
  assert.is(speech({ language: 'or-IN' }).target_language_code, 'od-IN');
  for (const language of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    assert.is(speech({ language }).target_language_code, 'hi-IN', language);
  }
  assert.is(speech({ response_format: 'pcm' }).output_audio_codec, 'linear16');
});

test.run();
