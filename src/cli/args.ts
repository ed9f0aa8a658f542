import { parseArgs } from 'node:util';

export class UsageError extends Error {}

/** Parses one command's flags strictly; unknown flags are usage errors, not silently ignored. */
export function parseFlags<T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function inrToMicros(value: string, flag: string): number {
  if (!/^\d+(\.\d{1,6})?$/.test(value)) throw new UsageError(`${flag} must be an amount in rupees, e.g. 500 or 12.50`);
  const [whole, frac = ''] = value.split('.');
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
}

export function positiveInt(value: string | undefined, flag: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max}`);
  return Number(value);
}

export function formatInr(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  return `${sign}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, '0').slice(0, 2)}`;
}
