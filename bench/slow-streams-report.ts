// The slow-streams scenario's table (one per stream count, a row per target) and what makes the
// run fail: a stream that did not complete, streams never all open at once, a gateway request
// that waited for an upstream connection.
import { TICK_US, type Ticks } from './cpu-time.js';
import { describeQueue, type GatewayQueue } from './gateway-queue.js';
import type { RampResult } from './slow-load.js';
import { percentile } from './stats.js';

/** The measured server at one moment: its resident memory, its open descriptors, its CPU so far. */
export interface Sample {
  rssKiB: number;
  fds: number;
  ticks: Ticks;
}

export interface Measured {
  target: string;
  streams: number;
  ramp: RampResult;
  /** Null for the mock itself (direct). */
  before: Sample | null;
  allOpen: Sample | null;
  peakHeldRssKiB: number;
  firstEnd: Ticks | null;
  end: Ticks | null;
  gateway: GatewayQueue | null;
}

const f1 = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : '-');
const f2 = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '-');
const us = (ticks: number, per: number): number => (ticks * TICK_US) / Math.max(1, per);

function row(m: Measured): string[] {
  const r = m.ramp;
  const b = m.before;
  const a = m.allOpen;
  const cpu = (from: Ticks | null, to: Ticks | null, per: number): string =>
    from === null || to === null ? '-' : `${f1(us(to.main - from.main, per))} + ${f1(us(to.other - from.other, per))}`;
  const held = b !== null && a !== null;
  return [
    m.target,
    `${r.completed}/${m.streams}`,
    `${r.peakOpen}`,
    `${Math.round(r.rampMs)}`,
    f1(r.allOpenMs),
    f2(percentile(r.ttfb, 50)),
    f2(percentile(r.ttfb, 99)),
    f2(r.ttfb.length > 0 ? r.ttfb[r.ttfb.length - 1] : NaN),
    held ? `${f1(b.rssKiB / 1024)} → ${f1(a.rssKiB / 1024)} (${f1(m.peakHeldRssKiB / 1024)})` : '-',
    held ? `${f1((a.rssKiB - b.rssKiB) / m.streams)} (${f1((m.peakHeldRssKiB - b.rssKiB) / m.streams)})` : '-',
    held ? `${b.fds} → ${a.fds}: ${f2((a.fds - b.fds) / m.streams)}` : '-',
    cpu(b?.ticks ?? null, a?.ticks ?? null, m.streams),
    cpu(a?.ticks ?? null, m.firstEnd, r.heldEvents),
    cpu(b?.ticks ?? null, m.end, m.streams),
  ];
}

const HEAD = ['target', 'complete', 'peak open', 'ramp ms', 'all open ms', 'TTFB p50', 'p99', 'max',
  'RSS MiB before → all open (peak held)', 'KiB/stream (peak)', 'fds before → open: per stream',
  'CPU µs/stream opening', 'µs/chunk held', 'µs/stream whole run'];

function grid(head: string[], rows: string[][]): string {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function problems(m: Measured): string[] {
  const out: string[] = [];
  const r = m.ramp;
  if (r.failures > 0) for (const [why, n] of r.reasons) out.push(`${m.target}, ${m.streams} streams: ${n} failed: ${why}`);
  if (r.peakOpen < m.streams) {
    out.push(`${m.target}, ${m.streams} streams: only ${r.peakOpen} were open at once (the first ended before the last opened: ` +
      `raise BENCH_SLOW_CHUNKS or speed the ramp)`);
  }
  const g = m.gateway;
  if (g !== null) {
    if (g.maxQueued > 0) out.push(`gateway, ${m.streams} streams: /health saw ${g.maxQueued} requests queued for an upstream connection`);
    if (g.maxQueueMs > 0) out.push(`gateway, ${m.streams} streams: ${g.waitedRows} requests waited for an upstream connection, at most ${g.maxQueueMs} ms`);
    if (g.ledgerRows < m.streams) out.push(`gateway, ${m.streams} streams: the ledger holds ${g.ledgerRows} rows for ${m.streams} requests`);
  }
  return out;
}

/** The header lines say what was run; then a table per count. */
export function printReport(header: string[], counts: number[], results: Measured[], skipped: string[]): void {
  console.log(`\n${header.join('\n')}`);
  for (const streams of counts) {
    const rows = results.filter((m) => m.streams === streams);
    if (rows.length === 0) continue;
    console.log(`\n${streams} concurrent streams (TTFB ms; CPU main + other threads)`);
    console.log(grid(HEAD, rows.map(row)));
    for (const m of rows) {
      if (m.gateway === null) continue;
      console.log(describeQueue(m.gateway));
      console.log(`chunks relayed while all ${streams} were held: ${m.ramp.heldEvents} ` +
        `(from ${f1(m.ramp.allOpenMs / 1000)} s to ${f1(m.ramp.firstEndMs / 1000)} s)`);
    }
  }
  if (skipped.length > 0) console.log(`\nskipped: ${[...new Set(skipped)].join(', ')}`);
}
