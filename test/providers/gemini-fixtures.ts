// Reads the Gemini golden fixtures (test/fixtures/gemini/), built from Google's published shapes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../test/fixtures/gemini/', import.meta.url));

export function fixture(name: string): any {
  return JSON.parse(readFileSync(DIR + name, 'utf8'));
}

export function fixtureBytes(name: string): Buffer {
  return readFileSync(DIR + name);
}
