import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { money, ms, num } from '../../lib/format';
import { navigate, withQuery, type Location } from '../../lib/router';
import { Select } from '../../components/field';
import { Empty, ErrorNotice, Loading } from '../../components/notice';
import { KeyLabel, TableWrap, type KeyUsage } from './tables';

export interface UsageEvent {
  at: string;
  request_id: string;
  key_id: string;
  key_prefix: string | null;
  endpoint: string;
  model: string;
  provider: string | null;
  attempt: number;
  status: number;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  latency_ms: number;
  streamed: boolean;
  byok: boolean;
  usage_estimated: boolean;
}
interface EventsBody { data: UsageEvent[]; next_cursor: string | null }

const PAGE = 50;
/** A filtered page can come back short (the gateway looks at 20,000 rows a page); a load fetches on until it has a page's worth, at most this often. */
const MAX_FETCHES = 8;
const COMMON_CODES = ['400', '401', '402', '403', '404', '408', '413', '429', '499', '500', '502', '503', '504'];

const time = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});

function statusTone(s: number): string {
  if (s >= 200 && s < 300) return 'badge-ok';
  if (s === 429 || s === 499) return 'badge-warn';
  return 'badge-danger';
}

export interface EventFilters { model: string; key: string; status: string }

export function filtersOf(loc: Location): EventFilters {
  return { model: loc.query.get('model') ?? '', key: loc.query.get('key') ?? '', status: loc.query.get('status') ?? '' };
}

/** The API query of the filters and range; the same for the table and the CSV export. */
function eventQuery(from: string, to: string, f: EventFilters): URLSearchParams {
  const q = new URLSearchParams({ from, to });
  if (f.model) q.set('model', f.model);
  if (f.key) q.set('key_id', f.key);
  if (f.status) q.set('status', f.status);
  return q;
}

/**
 * The per-request events of the range, newest first, with filters (model, key, status) kept in
 * the URL, keyset paging by "Load more", and the same rows as a CSV download.
 */
export function Events(p: { loc: Location; from: string; to: string; models: string[]; keys: KeyUsage[] }) {
  const f = filtersOf(p.loc);
  const query = eventQuery(p.from, p.to, f).toString();
  const [rows, setRows] = useState<UsageEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  const seq = useRef(0);

  /** Pages from `from` on until a page's worth of rows or the end; a newer load makes an older one stop. */
  const load = async (start: string | null, keep: UsageEvent[]) => {
    const mine = ++seq.current;
    setLoading(true);
    setError(null);
    let got = keep;
    let next = start;
    try {
      for (let i = 0; i < MAX_FETCHES; i++) {
        const page = await api.get<EventsBody>(`/me/activity/events?${query}&limit=${PAGE}${next ? `&cursor=${encodeURIComponent(next)}` : ''}`);
        if (mine !== seq.current) return;
        got = got.concat(page.data);
        next = page.next_cursor;
        if (next === null || got.length - keep.length >= PAGE) break;
      }
      setRows(got);
      setCursor(next);
    } catch (e) {
      if (mine === seq.current) setError(e as Error);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  };
  useEffect(() => {
    setRows([]);
    setCursor(null);
    void load(null, []);
  }, [query]);

  const keyName = new Map(p.keys.map((k) => [k.id, k]));
  const setFilter = (name: keyof EventFilters, v: string) => navigate(withQuery(p.loc, { [name]: v || null }));
  const models = p.models.includes(f.model) || !f.model ? p.models : [f.model, ...p.models];
  const codes = !f.status || f.status === 'ok' || f.status === 'error' || COMMON_CODES.includes(f.status) ? COMMON_CODES : [f.status, ...COMMON_CODES];
  const filtered = Boolean(f.model || f.key || f.status);

  return (
    <>
      <form class="form-row usage-filters" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
        <Select label="Model" value={f.model} onChange={(v) => setFilter('model', v)}
          options={[{ value: '', label: 'Any model' }, ...models.map((m) => ({ value: m, label: m }))]} />
        <Select label="Key" value={f.key} onChange={(v) => setFilter('key', v)}
          options={[{ value: '', label: 'Any key' }, ...p.keys.map((k) => ({ value: k.id, label: `${k.name} (${k.prefix})` })),
            ...(f.key && !keyName.has(f.key) ? [{ value: f.key, label: f.key }] : [])]} />
        <Select label="Status" value={f.status} onChange={(v) => setFilter('status', v)}
          options={[{ value: '', label: 'Any status' }, { value: 'ok', label: 'Succeeded (2xx)' }, { value: 'error', label: 'Failed (not 2xx)' },
            ...codes.map((c) => ({ value: c, label: `HTTP ${c}` }))]} />
        {filtered && (
          <button type="button" class="btn btn-small" onClick={() => navigate(withQuery(p.loc, { model: null, key: null, status: null }))}>Clear filters</button>
        )}
      </form>
      <ErrorNotice error={error} />
      {rows.length === 0 && loading && <Loading label="Loading events…" />}
      {rows.length === 0 && !loading && !error && (
        <Empty>
          {cursor ? 'None of the newest events looked through match these filters. Load more to look further back.'
            : filtered ? 'No events match these filters in this range.' : 'No requests in this range.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <TableWrap label="Events table">
          <table class="usage-table usage-events">
            <caption class="sr-only">Events, newest first</caption>
            <thead><tr><th scope="col">Time (IST)</th><th scope="col">Key</th><th scope="col">Model</th><th scope="col">Provider</th>
              <th scope="col">Status</th><th scope="col" class="num">Tokens in → out</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Latency</th></tr></thead>
            <tbody>
              {rows.map((e) => {
                const k = keyName.get(e.key_id);
                return (
                  <tr key={`${e.request_id}/${e.attempt}/${e.at}`}>
                    <td class="usage-nowrap"><time dateTime={e.at}>{time.format(new Date(e.at))}</time></td>
                    <td><KeyLabel name={k?.name ?? null} prefix={e.key_prefix} id={e.key_id} /></td>
                    <td class="usage-model">{e.model}{e.endpoint !== 'chat' && <span class="muted"> · {e.endpoint}</span>}</td>
                    <td>
                      {e.provider ?? '—'}
                      {e.byok && <span class="badge">own key</span>}
                      {e.attempt > 0 && <span class="badge" title="Served after an earlier attempt failed">retry {e.attempt}</span>}
                    </td>
                    <td class="usage-nowrap">
                      <span class={`badge ${statusTone(e.status)}`}>{e.status}</span>
                      {e.error_code && <span class="muted usage-code"> {e.error_code}</span>}
                    </td>
                    <td class="num usage-nowrap">{num(e.prompt_tokens)} → {num(e.completion_tokens)}{e.usage_estimated && <span class="muted" title="Estimated: the provider reported no usage">*</span>}</td>
                    <td class="num">{money(e.cost)}</td>
                    <td class="num">{ms(e.latency_ms)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
      <div class="usage-more">
        <p class="muted" role="status" aria-live="polite">
          {rows.length > 0 ? `Showing ${num(rows.length)} event${rows.length === 1 ? '' : 's'}, newest first${cursor ? '' : ': that is all of them'}.` : ''}
        </p>
        {cursor && (
          <button type="button" class="btn" disabled={loading} onClick={() => void load(cursor, rows)}>{loading ? 'Loading…' : 'Load more'}</button>
        )}
      </div>
    </>
  );
}

/** The most events one export holds (the gateway refuses a range with more: EXPORT_MAX_ROWS). */
const EXPORT_MAX = 1_000_000;

/**
 * The CSV export of exactly what the table shows (all pages): a plain download from the gateway.
 * A range with more events than an export holds cannot be exported, so the page says so
 * instead of offering a download the gateway would refuse.
 */
export function ExportLink(p: { loc: Location; from: string; to: string; events: number | null }) {
  if (p.events !== null && p.events > EXPORT_MAX) {
    return <span class="muted">{num(p.events)} events are too many for one export (at most {num(EXPORT_MAX)}): choose a shorter range.</span>;
  }
  const href = `/me/activity/events.csv?${eventQuery(p.from, p.to, filtersOf(p.loc))}`;
  return <a class="btn btn-small" href={href} download>Download CSV</a>;
}
