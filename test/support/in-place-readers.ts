// What the tests of the readers in place share (a whole answer matched by one expression of a
// provider's compact layout, its literals copied, its usage alone parsed, held to the full parse):
// the random answers written in layouts the reader must take and others it must leave, and the
// two sweeps each reader is put through.
import * as assert from 'uvu/assert';
import { mutate } from './json-mutate.js';
import { rng } from './seeded-random.js';

export const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** Token counts, and values a count should not be. */
export const COUNTS = [0, 1, 21, 1800, 2 ** 31, 2 ** 53, 1.5, -3, 1e21, null, '7', true];

export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether JSON text has none of what puts an answer outside a compact layout (escapes JSON.stringify does not write, space, line breaks). */
export function compactCanonical(json: string): boolean {
  return !json.includes('\\u') && !json.includes('\\/') && !json.trim().includes('\n') && !json.includes(': ') && isJson(json);
}

/**
 * An answer's bytes: JSON.stringify's, now and then pretty-printed, with `é` or `/` escaped, a
 * key spelled with an escape, the count `numberKey` written as a decimal, or trailing bytes.
 */
export function written(answer: Record<string, unknown>, r: () => number, numberKey: string): Buffer {
  let s = JSON.stringify(answer, null, r() < 0.1 ? 1 : undefined);
  if (r() < 0.15) s = s.replace(/é/g, '\\u00e9');
  if (r() < 0.05) s = s.replace(/\//g, '\\/');
  if (r() < 0.05) s = s.replace('"model"', '"m\\u006fdel"');
  if (r() < 0.05) s = s.replace(new RegExp(`"${numberKey}":(\\d+)(?=[,}])`), `"${numberKey}":$1.0`);
  if (r() < 0.05) s += pick(r, ['\n', ' \r\n', '\t', ' x', '}']);
  return Buffer.from(s, 'utf8');
}

/** A sweep's answers and what it asks of the reader. */
export interface ReaderSweep {
  seed: number;
  /** A random answer as a value. */
  answer(r: () => number): Record<string, unknown>;
  /** Its bytes (written above, with the reader's count key). */
  bytes(answer: Record<string, unknown>, r: () => number): Buffer;
  /** Whether the reader takes these bytes; where it does, asserts that what it writes is the parse's. */
  same(bytes: Buffer, i: number, r: () => number): boolean;
}

/** Random answers: every one read is the parse's, and every one `usual` says is in the layout is read (more than `least` of them). */
export function randomSweep(s: ReaderSweep, count: number, usual: (answer: Record<string, unknown>, json: string) => boolean, least: number): void {
  const r = rng(s.seed);
  let read = 0;
  let usuals = 0;
  for (let i = 0; i < count; i++) {
    const a = s.answer(r);
    const bytes = s.bytes(a, r);
    const taken = s.same(bytes, i, r);
    if (taken) read++;
    const text = bytes.toString('utf8');
    if (usual(a, text)) usuals++;
    assert.ok(taken || !usual(a, text), `case ${i}: left to the parse: ${text}`);
  }
  assert.ok(usuals > least && read >= usuals, `read in place: ${read} of ${count}, ${usuals} in the layout`);
}

/** Answers the reader takes, edited at random: what it still takes is JSON and the parse's (more than `least` of them). */
export function mutatedSweep(s: ReaderSweep, count: number, snippets: readonly string[], least: number): void {
  const r = rng(s.seed);
  const seeds: Buffer[] = [];
  for (let i = 0; seeds.length < 20; i++) {
    const bytes = s.bytes(s.answer(r), r);
    if (s.same(bytes, -1 - i, r)) seeds.push(bytes);
  }
  let read = 0;
  for (let i = 0; i < count; i++) {
    const bytes = mutate(pick(r, seeds), r, snippets);
    if (!s.same(bytes, i, r)) continue;
    read++;
    assert.ok(isJson(bytes.toString('utf8')), `case ${i}: read an answer JSON.parse refuses: ${bytes.toString('latin1')}`);
  }
  assert.ok(read > least, `read in place: ${read} of ${count}`);
}
