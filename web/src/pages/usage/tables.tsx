import type { ComponentChildren } from 'preact';
import { money, num, pct } from '../../lib/format';
import type { Activity, Volume } from '../../lib/usage-types';
import { Empty } from '../../components/notice';

export interface KeyUsage {
  id: string;
  prefix: string;
  name: string;
  status: string;
  today: Volume;
  last_30_days: Volume;
}
export interface UsageBody { today: string; from: string; data: KeyUsage[] }

/** A key as people know it: its name, and its prefix to tell keys of one name apart. */
export function KeyLabel(p: { name: string | null; prefix: string | null; id?: string }) {
  return (
    <span class="usage-key">
      <span>{p.name || p.prefix || p.id}</span>
      {p.prefix && p.name && <code>{p.prefix}</code>}
    </span>
  );
}

/**
 * A table's scroll box: focusable, so that keyboard users can scroll a table wider than a phone,
 * and named for screen readers.
 */
export function TableWrap(p: { label: string; children: ComponentChildren }) {
  return <div class="table-wrap" tabIndex={0} role="region" aria-label={p.label}>{p.children}</div>;
}

/** A share of a whole as a bar (drawn with SVG attributes: the CSP allows no inline styles) and a percentage. */
function ShareBar(p: { share: number }) {
  const w = Math.max(0, Math.min(1, p.share)) * 100;
  return (
    <span class="usage-share">
      <svg class="usage-share-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <rect class="usage-share-track" x="0" y="0" width="100" height="8" rx="2" />
        <rect class="usage-share-fill" x="0" y="0" width={w} height="8" rx="2" />
      </svg>
      <span class="num">{pct(p.share)}</span>
    </span>
  );
}

export function TopModels(p: { a: Activity }) {
  const total = p.a.totals.cost;
  if (p.a.top_models.length === 0) return <Empty>No requests in this range.</Empty>;
  return (
    <TableWrap label="Top models by spend">
      <table class="usage-table">
        <caption class="sr-only">Top models by spend</caption>
        <thead><tr><th scope="col">Model</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Input tokens</th>
          <th scope="col" class="num">Output tokens</th><th scope="col" class="num">Spend</th><th scope="col" class="num">Share</th></tr></thead>
        <tbody>
          {p.a.top_models.map((m) => (
            <tr key={m.model}>
              <th scope="row" class="usage-model">{m.model}</th>
              <td class="num">{num(m.requests)}</td>
              <td class="num">{num(m.prompt_tokens)}</td>
              <td class="num">{num(m.completion_tokens)}</td>
              <td class="num">{money(m.cost)}</td>
              <td class="num">{pct(total > 0 ? m.cost / total : 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function TopKeys(p: { a: Activity }) {
  if (p.a.top_keys.length === 0) return <Empty>No requests in this range.</Empty>;
  return (
    <TableWrap label="Top keys by spend">
      <table class="usage-table">
        <caption class="sr-only">Top keys by spend</caption>
        <thead><tr><th scope="col">Key</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Tokens</th><th scope="col" class="num">Spend</th></tr></thead>
        <tbody>
          {p.a.top_keys.map((k) => (
            <tr key={k.id}>
              <th scope="row"><KeyLabel name={k.name} prefix={k.prefix} id={k.id} /></th>
              <td class="num">{num(k.requests)}</td>
              <td class="num">{num(k.prompt_tokens + k.completion_tokens)}</td>
              <td class="num">{money(k.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function Providers(p: { a: Activity }) {
  if (p.a.providers.length === 0) return <Empty>No provider served a request in this range.</Empty>;
  return (
    <TableWrap label="Cost by provider">
      <table class="usage-table">
        <caption class="sr-only">Cost by provider</caption>
        <thead><tr><th scope="col">Provider</th><th scope="col" class="num">Requests served</th><th scope="col" class="num">Spend</th><th scope="col">Share of spend</th></tr></thead>
        <tbody>
          {p.a.providers.map((pr) => (
            <tr key={pr.provider}>
              <th scope="row">{pr.provider}</th>
              <td class="num">{num(pr.requests)}</td>
              <td class="num">{money(pr.cost)}</td>
              <td><ShareBar share={pr.share} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

const STATUS_TONE: Record<string, string> = { active: 'badge-ok', revoked: 'badge-danger', expired: 'badge-warn' };

/** Every key of the org, today and over the last 30 IST days (GET /me/usage: a fixed window, whatever the page's range). */
export function KeysUsage(p: { u: UsageBody }) {
  if (p.u.data.length === 0) return <Empty>This organisation has no API keys yet. <a href="/keys?new=1">Create one</a>.</Empty>;
  return (
    <TableWrap label="Usage per key, today and the last 30 days">
      <table class="usage-table">
        <caption class="sr-only">Usage per key, today and the last 30 days</caption>
        <thead><tr><th scope="col">Key</th><th scope="col">Status</th><th scope="col" class="num">Requests today</th><th scope="col" class="num">Spend today</th>
          <th scope="col" class="num">Requests, 30 days</th><th scope="col" class="num">Tokens, 30 days</th><th scope="col" class="num">Spend, 30 days</th></tr></thead>
        <tbody>
          {p.u.data.map((k) => (
            <tr key={k.id}>
              <th scope="row"><KeyLabel name={k.name} prefix={k.prefix} /></th>
              <td><span class={`badge ${STATUS_TONE[k.status] ?? ''}`}>{k.status}</span></td>
              <td class="num">{num(k.today.requests)}</td>
              <td class="num">{money(k.today.cost)}</td>
              <td class="num">{num(k.last_30_days.requests)}</td>
              <td class="num">{num(k.last_30_days.prompt_tokens + k.last_30_days.completion_tokens)}</td>
              <td class="num">{money(k.last_30_days.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
