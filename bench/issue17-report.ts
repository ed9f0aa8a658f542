// Issue 17's targets at 1 KB, read from the same rounds as the rest of the report: the gateway
// against the floor and nginx, and each translated path against the plain pass-through. Every
// ratio is taken within a round, then the median and range over the rounds are shown.
import type { CpuPerRequest } from './cpu-time.js';
import { grid, median, plusMs, times } from './grid.js';
import type { RoundResult, TargetResult } from './report.js';
import type { StreamsResult } from './streams.js';
import { STREAM_CHUNKS } from './payloads.js';

/** The stream scenario's chunks, as gateway.bench.ts reads them. */
const CHUNKS = Number(process.env.BENCH_STREAM_CHUNKS ?? STREAM_CHUNKS);

type PerRound = (a: RoundResult, b: RoundResult) => number | undefined;

interface Target17 {
  what: string;
  a: string;
  b: string;
  wanted: string;
  met: (v: number) => boolean;
  value: PerRound;
  format: (v: number) => string;
}

const cpuOf = (c: CpuPerRequest | null | undefined): number | undefined =>
  !c || c.serverMain === null || c.serverOther === null ? undefined : c.serverMain + c.serverOther;

const ratio = (x: number | undefined, y: number | undefined): number | undefined => (x === undefined || !y ? undefined : x / y);

const agentCpu: PerRound = (a, b) => ratio(cpuOf(a.agent?.cpu), cpuOf(b.agent?.cpu));
const jsonCpu: PerRound = (a, b) => ratio(cpuOf(a.throughput?.cpu), cpuOf(b.throughput?.cpu));
const streamCpu: PerRound = (a, b) => ratio(cpuOf(a.streams?.cpu), cpuOf(b.streams?.cpu));
const agentStreamCpu: PerRound = (a, b) => ratio(cpuOf(a.agentStreams?.cpu), cpuOf(b.agentStreams?.cpu));

const TARGETS: Target17[] = [
  { what: 'server CPU per request (JSON, 50 connections)', a: 'gateway', b: 'floor', wanted: '<= 1.25x', met: (v) => v <= 1.25, value: jsonCpu, format: times },
  { what: 'throughput', a: 'gateway', b: 'nginx', wanted: '>= 1.00x', met: (v) => v >= 1, format: times,
    value: (a, b) => ratio(a.throughput?.rps, b.throughput?.rps) },
  { what: 'added stream TTFB p50, ms, less nginx\'s', a: 'gateway', b: 'nginx', wanted: '<= +0.050', met: (v) => v <= 0.05, format: plusMs,
    value: (a, b) => (a.streams && b.streams ? a.streams.ttfb.p50 - b.streams.ttfb.p50 : undefined) },
  { what: 'server CPU per request (JSON)', a: 'gateway-responses', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: jsonCpu, format: times },
  { what: `server CPU per stream (${CHUNKS} chunks)`, a: 'gateway-responses', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: streamCpu, format: times },
  { what: 'server CPU per request (JSON)', a: 'gateway-messages', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: jsonCpu, format: times },
  { what: `server CPU per stream (${CHUNKS} chunks)`, a: 'gateway-messages', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: streamCpu, format: times },
  { what: 'server CPU per request (200 KB agent turn)', a: 'gateway-messages', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: agentCpu, format: times },
  { what: 'server CPU per request (200 KB agent turn)', a: 'gateway-responses', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: agentCpu, format: times },
  { what: 'server CPU per request (200 KB agent turn)', a: 'gateway-messages-native', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: agentCpu, format: times },
  { what: `server CPU per stream (200 KB agent turn, ${CHUNKS} chunks)`, a: 'gateway-messages', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: agentStreamCpu, format: times },
  { what: `server CPU per stream (200 KB agent turn, ${CHUNKS} chunks)`, a: 'gateway-responses', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: agentStreamCpu, format: times },
  { what: `server CPU per stream (200 KB agent turn, ${CHUNKS} chunks)`, a: 'gateway-messages-native', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: agentStreamCpu, format: times },
  { what: 'server CPU per request (JSON)', a: 'gateway-anthropic', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: jsonCpu, format: times },
  { what: `server CPU per stream (${CHUNKS} chunks)`, a: 'gateway-anthropic', b: 'gateway', wanted: '<= 1.30x', met: (v) => v <= 1.3, value: streamCpu, format: times },
];

export function printIssue17(measured: TargetResult[]): void {
  const by = (name: string): TargetResult | undefined => measured.find((t) => t.name === name);
  const rows: string[][] = [];
  for (const g of TARGETS) {
    const a = by(g.a);
    const b = by(g.b);
    if (!a || !b) continue;
    const vs = a.rounds.map((r, i) => (b.rounds[i] ? g.value(r, b.rounds[i]) : undefined))
      .filter((v): v is number => v !== undefined && Number.isFinite(v));
    const m = median(vs);
    if (m === undefined) continue;
    const cell = vs.length > 1 ? `${g.format(m)} (${g.format(Math.min(...vs))}..${g.format(Math.max(...vs))})` : g.format(m);
    rows.push([`${g.a} / ${g.b}`, g.what, g.wanted, cell, g.met(m) ? 'yes' : 'no']);
  }
  if (rows.length === 0) return;
  console.log('\nissue 17 at 1 KB: the gateway against the floor and nginx, translated paths against the pass-through');
  console.log(grid(['targets', 'measure', 'wanted', 'median (range)', 'met'], rows));
  printStreamCpu(measured, 'the stream runs', (r) => r.streams);
  printStreamCpu(measured, 'the streamed agent turns (~200 KB bodies)', (r) => r.agentStreams);
}

/** Each target's CPU per stream in one stream scenario, µs, medians over the rounds. */
function printStreamCpu(measured: TargetResult[], what: string, of: (r: RoundResult) => StreamsResult | undefined): void {
  const rows = measured.filter((t) => t.rounds.some((r) => of(r)?.cpu));
  if (rows.length === 0) return;
  const us = (t: TargetResult, f: (c: CpuPerRequest) => number | null): string => {
    const v = median(t.rounds.map((r) => { const c = of(r)?.cpu; return c ? f(c) : null; }).filter((x): x is number => x !== null));
    return v === undefined ? '-' : v.toFixed(1);
  };
  console.log(`\nCPU per stream in ${what}, µs, medians`);
  console.log(grid(['target', 'server main', 'server other', 'mock'], rows.map((t) => [
    t.name, us(t, (c) => c.serverMain), us(t, (c) => c.serverOther), us(t, (c) => c.mock),
  ])));
}
