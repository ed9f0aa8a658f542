import { IST_OFFSET_MS } from '../lib/ist.js';
import type { Db } from '../store/database.js';
import { usageTailReader, type TailFilter, type UsageRow } from '../store/usage.js';
import { formatInr } from '../lib/money.js';
import { parseFlags, positiveInt } from './args.js';

const HEADER = 'time(IST)     request            key               model                     provider   att status code                 prompt  compl     cost₹   lat_ms  ttfb_ms flags [cached= cache_write= reasoning=]';

/**
 * `gw tail`: follows the usage ledger like `tail -f`, in readable columns or JSON lines. Reads
 * through its own read-only connection, so it never blocks the gateway's writer (WAL).
 */
export async function tail(db: Db, argv: string[], json: boolean): Promise<number> {
  return tailLedger((f) => usageTailReader(db, f), argv, json);
}

/** What `gw tail` reads: the SQLite reader answers at once, PostgreSQL's (postgresUsageTailReader) with promises. */
export interface TailReader {
  after(id: number, limit: number): UsageRow[] | Promise<UsageRow[]>;
  lastId(): number | Promise<number>;
  lastN(n: number): UsageRow[] | Promise<UsageRow[]>;
}

/** `gw tail` over either store: `open` makes the reader for the filters given. */
export async function tailLedger(open: (f: TailFilter) => TailReader, argv: string[], json: boolean): Promise<number> {
  const { values } = parseFlags(argv, {
    org: { type: 'string' }, key: { type: 'string' }, model: { type: 'string' }, lines: { type: 'string', short: 'n' },
    'no-follow': { type: 'boolean' }, interval: { type: 'string' },
  });
  const reader = open({ orgId: values.org, keyId: values.key, model: values.model });
  const interval = positiveInt(values.interval, '--interval', 60_000) ?? 250;
  const print = (rows: UsageRow[]) => {
    for (const r of rows) console.log(json ? JSON.stringify(r) : formatRow(r));
  };
  if (!json) console.log(HEADER);
  // The high-water mark is read before the last rows: a row committed between the two reads is
  // then printed by the follow loop rather than skipped.
  const mark = await reader.lastId();
  const first = await reader.lastN(positiveInt(values.lines, '--lines') ?? 10);
  print(first);
  if (values['no-follow']) return 0;
  let last = Math.max(first.at(-1)?.id ?? 0, mark);
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    // A timeout armed after each poll, not an interval: a remote read may outlast the interval.
    const poll = async () => {
      try {
        for (;;) {
          const rows = await reader.after(last, 1000);
          if (rows.length === 0) break;
          print(rows);
          last = rows[rows.length - 1].id;
        }
      } catch (e) {
        // The store unreachable for a while (PostgreSQL restarting): keep following from the last row printed.
        console.error(`gw tail: ${e instanceof Error ? e.message : String(e)}; retrying`);
      }
      if (!stopped) timer = setTimeout(() => void poll(), interval);
    };
    timer = setTimeout(() => void poll(), interval);
    const stop = () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

/** Tokens in and out; audio rows show their billed units instead: seconds heard, characters spoken. */
function volume(r: UsageRow): [string, string] {
  if (r.endpoint === 'transcriptions' || r.endpoint === 'translations') return [`${r.units}s`.padStart(6), '-'.padStart(6)];
  if (r.endpoint === 'speech') return [`${r.units}ch`.padStart(6), '-'.padStart(6)];
  return [String(r.prompt_tokens).padStart(6), String(r.completion_tokens).padStart(6)];
}

function formatRow(r: UsageRow): string {
  const t = new Date(r.at + IST_OFFSET_MS).toISOString().slice(11, 23);
  const flags = `${r.billable ? '$' : '-'}${r.streamed ? 'S' : '-'}${r.byok ? 'B' : '-'}${r.usage_estimated ? 'E' : '-'}${r.usage_clamped ? 'C' : '-'}`;
  return [
    t.padEnd(13), r.request_id.padEnd(18), r.key_id.padEnd(17), r.model.slice(0, 25).padEnd(25), (r.provider ?? '-').padEnd(10),
    String(r.attempt).padStart(3), String(r.status).padStart(6), (r.error_code ?? '-').padEnd(20),
    ...volume(r), formatInr(r.cost_micros).padStart(9),
    r.latency_ms.toFixed(1).padStart(8), (r.ttfb_ms === null ? '-' : r.ttfb_ms.toFixed(1)).padStart(8), flags + parts(r),
  ].join(' ');
}

/** The cache and reasoning parts of the token counts, after the flags and only when there are any. */
function parts(r: UsageRow): string {
  let s = '';
  if (r.cached_tokens > 0) s += ` cached=${r.cached_tokens}`;
  if (r.cache_write_tokens > 0) s += ` cache_write=${r.cache_write_tokens}`;
  if (r.reasoning_tokens > 0) s += ` reasoning=${r.reasoning_tokens}`;
  return s;
}
