import { USAGE_SLOT, type UsageTuple } from '../domain/usage-record.js';
import { IST_OFFSET_MS, istDayNumber } from '../lib/ist.js';

const F = USAGE_SLOT;

/**
 * One cell of the rollup as ROLLUP_SQL.fold selects it and the rollup's upsert takes it: org,
 * IST day number, key, model, provider ('' for none), requests, prompt, completion, cached,
 * cache-write and reasoning tokens, cost, served, attempts, lowest and highest row id.
 */
export type RollupCell = [string, number, string, string, string, number, number, number, number, number, number, number, number, number, number, number];

/**
 * The cells of a batch the ledger writer has just inserted, its rows given ids firstId, firstId
 * + 1, … in order: what ROLLUP_SQL.fold returns for that id range, summed here from the rows in
 * hand rather than read back from the table (the fold's GROUP BY was 3.2 of the writer's 11.4 µs
 * a row, 1,000-row batches; docs/benchmarks.md). Null when a row holds what SQLite would sum or
 * divide differently from JavaScript (a time or a count that is not an integer, which the data
 * plane never writes): the caller folds such a batch in SQL.
 */
export function rollupBatchCells(rows: readonly UsageTuple[], firstId: number): RollupCell[] | null {
  const cells = new Map<string, RollupCell>();
  let last: RollupCell | null = null;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const at = r[F.at] as number;
    const prompt = r[F.promptTokens] as number;
    const completion = r[F.completionTokens] as number;
    const cached = r[F.cachedTokens] as number;
    const cacheWrite = r[F.cacheWriteTokens] as number;
    const reasoning = r[F.reasoningTokens] as number;
    const cost = r[F.costMicros] as number;
    const attempt = r[F.attempt] as number;
    const billable = r[F.billable] as number;
    if (!Number.isSafeInteger(at) || at < -IST_OFFSET_MS || !Number.isSafeInteger(prompt) || !Number.isSafeInteger(completion) ||
      !Number.isSafeInteger(cached) || !Number.isSafeInteger(cacheWrite) || !Number.isSafeInteger(reasoning) ||
      !Number.isSafeInteger(cost) || !Number.isSafeInteger(attempt) || (billable !== 0 && billable !== 1)) return null;
    const org = r[F.orgId] as string;
    // SQLite's integer division truncates; `at` is at least -IST_OFFSET_MS, so that is istDayNumber's floor.
    const day = istDayNumber(at);
    const keyId = r[F.keyId] as string;
    const model = r[F.model] as string;
    const provider = (r[F.provider] as string | null) ?? '';
    // Consecutive rows mostly share a cell (one key, model and provider): compared before the map is read.
    let c: RollupCell | null = last;
    if (c === null || c[0] !== org || c[1] !== day || c[2] !== keyId || c[3] !== model || c[4] !== provider) {
      const name: string = `${org}\u0000${day}\u0000${keyId}\u0000${model}\u0000${provider}`;
      c = cells.get(name) ?? null;
      if (c === null) {
        c = [org, day, keyId, model, provider, 0, 0, 0, 0, 0, 0, 0, 0, 0, firstId + i, 0];
        cells.set(name, c);
      }
      last = c;
    }
    if (attempt === 0) c[5]++;
    if (billable === 1) {
      c[6] += prompt;
      c[7] += completion;
      c[8] += cached;
      c[9] += cacheWrite;
      c[10] += reasoning;
      c[11] += cost;
      c[12]++;
    }
    c[13]++;
    c[15] = firstId + i;
  }
  const out = [...cells.values()];
  for (const c of out) for (let k = 5; k <= 13; k++) if (!Number.isSafeInteger(c[k])) return null;
  return out;
}
