import { parseArgs } from 'node:util';
import { parseInr } from '../lib/money.js';

export class UsageError extends Error {}

/** Parses one command's flags strictly; unknown flags are usage errors, not silently ignored. */
export function parseFlags<T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** A flag's amount in rupees as micro-rupees. */
export function inrFlag(value: string, flag: string): number {
  const micros = parseInr(value);
  if (micros === null) throw new UsageError(`${flag} must be an amount in rupees, e.g. 500 or 12.50`);
  return micros;
}

export function positiveInt(value: string | undefined, flag: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max}`);
  return Number(value);
}
