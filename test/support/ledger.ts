// Reading the gateway's SQLite ledger from a test, and the arithmetic the ledger must agree with.
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './gateway-process.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

/** Catalog prices of llama-3.3-70b-instruct in micro-rupees per token (₹ per 1M tokens). */
export const GROQ = { input: 52, output: 69.5 } as const;
export const TOGETHER = { input: 77.4, output: 77.4 } as const;

/** Cost of one request as the gateway must compute it: rounded once, half up. */
export function costOf(price: { input: number; output: number }, prompt: number, completion: number): number {
  return Math.round(prompt * price.input + completion * price.output);
}

/** The hold taken for a request before it runs (src/billing/cost.ts): 4 body bytes a token plus max_tokens. */
export function holdOf(price: { input: number; output: number }, bodyBytes: number, maxTokens: number): number {
  return Math.ceil(Math.ceil(bodyBytes / 4) * price.input + maxTokens * price.output);
}

/** A read-only connection: WAL lets it read while the gateway writes. */
export function openLedger(dbPath: string): Database.Database {
  return new Database(dbPath, { readonly: true, fileMustExist: true });
}

/** Opens, reads, closes: a test that polls should not keep a snapshot open. */
export function query<T>(dbPath: string, fn: (db: Database.Database) => T): T {
  const db = openLedger(dbPath);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Writes to the gateway's database as another process would (workspace budgets until their API exists). */
export function write(dbPath: string, fn: (db: Database.Database) => void): void {
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 5000');
  try {
    fn(db);
  } finally {
    db.close();
  }
}

export interface BalanceCheck {
  org_id: string;
  balance_micros: number;
  credits: number;
  usage: number;
}

/** Orgs whose cached balance differs from credits minus usage; empty when the ledger is consistent. */
export function balanceMismatches(db: Database.Database): BalanceCheck[] {
  return db.prepare(`SELECT o.id AS org_id, o.balance_micros,
      COALESCE((SELECT SUM(amount_micros) FROM money_events m WHERE m.org_id = o.id), 0) AS credits,
      COALESCE((SELECT SUM(cost_micros) FROM usage u WHERE u.org_id = o.id), 0) AS usage
    FROM orgs o`).all().filter((r: any) => r.balance_micros !== r.credits - r.usage) as BalanceCheck[];
}

/** Runs the operator CLI against a database directly, with no gateway (setting up before one starts). */
export async function cliOn(dbPath: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [MAIN, '--db', dbPath, '--json', ...args], { env: { ...process.env, GW_CONFIG: '' } });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

export const MAIN_JS = MAIN;

/** The parsed error of a refused request, with its retry-after in seconds (NaN when absent). */
export async function errorOf(res: Response): Promise<{ status: number; code: string; type: string; message: string; retryAfter: number }> {
  const body: any = await res.json();
  return { status: res.status, ...body.error, retryAfter: Number(res.headers.get('retry-after') ?? NaN) };
}

/** waitFor for a value: polls until fn returns something other than false, null or undefined, and returns it. */
export async function waitForValue<T>(fn: () => T | false | null | undefined, timeoutMs: number, what: string): Promise<T> {
  let value: T | undefined;
  await waitFor(() => {
    const v = fn();
    if (v === false || v === null || v === undefined) return false;
    value = v;
    return true;
  }, timeoutMs, what);
  return value as T;
}
