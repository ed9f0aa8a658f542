import { modelValueIn } from '../lib/json-text.js';

const MODEL = Buffer.from('"model"');
/** Bytes after the key searched for its value: a model id is far shorter. */
const WINDOW = 1024;

/**
 * A whole answer with the model the client asked for (`model`, as JSON text) in place of the
 * provider's own id, at the first `"model"` key (the answer's own: keys inside strings are
 * escaped). Found with one search in C++ and a look at the bytes after it; the rest of the
 * answer is copied as it is, never parsed. An answer without a string model is returned as is.
 */
export function withAnswerModel(answer: Buffer, model: Buffer): Buffer {
  const at = answer.indexOf(MODEL);
  if (at < 0) return answer;
  const text = answer.toString('latin1', at, Math.min(answer.length, at + WINDOW));
  const v = modelValueIn(text, 0, text.length);
  if (v === null) return answer;
  return Buffer.concat([answer.subarray(0, at + v[0]), model, answer.subarray(at + v[1])]);
}
