// Reading test/fixtures/anthropic/ (the golden files of the Anthropic translators).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../test/fixtures/anthropic/', import.meta.url));

/** The `created` the golden answers and chunks carry: the translators take the clock as an argument. */
export const FIXED_NOW = 1_764_000_000_000;

export function fixtureBytes(name: string): Buffer {
  return readFileSync(DIR + name);
}

export function fixtureJson(name: string): any {
  return JSON.parse(readFileSync(DIR + name, 'utf8'));
}

/** A `.chunks.jsonl` file: the `data:` payloads expected, `[DONE]` kept as text. */
export function fixtureChunks(name: string): unknown[] {
  return readFileSync(DIR + name, 'utf8').split('\n').filter((l) => l !== '').map((l) => (l === '[DONE]' ? l : JSON.parse(l)));
}

/** Chat SSE text → its `data:` payloads, parsed (`[DONE]` kept as text); every event must be a `data:` line ending in a blank line. */
export function sseData(text: string): unknown[] {
  if (text === '') return [];
  if (!text.endsWith('\n\n')) throw new Error(`SSE output does not end an event: ${JSON.stringify(text.slice(-40))}`);
  return text.slice(0, -2).split('\n\n').map((ev) => {
    if (!ev.startsWith('data: ')) throw new Error(`not a data line: ${ev}`);
    const d = ev.slice(6);
    return d === '[DONE]' ? d : JSON.parse(d);
  });
}
