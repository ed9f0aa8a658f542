// Prints the comparison table and the targets that matter: what each proxy costs relative to
// calling the provider directly and relative to the bare node:http + undici proxy, so the
// gateway can be read against proxies that do none of its work (the floor, nginx).
import type { OneConnectionResult } from './one-connection.js';
import type { StreamsResult } from './streams.js';
import type { ThroughputResult } from './throughput.js';

export interface TargetResult {
  name: string;
  /** Why the target was not measured; null when it was. */
  skipped: string | null;
  throughput?: ThroughputResult;
  oneConnection?: OneConnectionResult;
  streams?: StreamsResult;
  rssMiB?: number | null;
}

const ms = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '-' : v.toFixed(3));

const COLUMNS: [string, (r: TargetResult) => string][] = [
  ['target', (r) => r.name],
  ['req/s', (r) => (r.throughput ? r.throughput.rps.toFixed(0) : '-')],
  ['p50 ms', (r) => ms(r.throughput?.latency.p50)],
  ['p99 ms', (r) => ms(r.throughput?.latency.p99)],
  ['1-conn p50', (r) => ms(r.oneConnection?.latency.p50)],
  ['1-conn p99', (r) => ms(r.oneConnection?.latency.p99)],
  ['TTFB p50', (r) => ms(r.streams?.ttfb.p50)],
  ['TTFB p99', (r) => ms(r.streams?.ttfb.p99)],
  ['stream p50', (r) => ms(r.streams?.total.p50)],
  ['RSS MiB', (r) => (r.rssMiB == null ? '-' : r.rssMiB.toFixed(1))],
];

function table(rows: TargetResult[]): string {
  const cells = [COLUMNS.map(([h]) => h), ...rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row: string[]): string => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function problems(r: TargetResult): string[] {
  const out: string[] = [];
  if (r.throughput && (r.throughput.non2xx || r.throughput.errors)) {
    out.push(`${r.name}: load run had ${r.throughput.non2xx} non-2xx and ${r.throughput.errors} errors/timeouts`);
  }
  if (r.oneConnection?.failures) out.push(`${r.name}: ${r.oneConnection.failures} one-connection requests were not 200`);
  if (r.streams?.failures) out.push(`${r.name}: ${r.streams.failures} streams failed or lacked [DONE]`);
  return out;
}

interface Goal {
  name: string;
  wanted: string;
  value: (t: TargetResult, direct: TargetResult, bare: TargetResult) => number | undefined;
  met: (v: number) => boolean;
  format: (v: number) => string;
}

const times = (v: number): string => `${v.toFixed(2)}x`;
const plusMs = (v: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;

/** Issue 2's four targets, each computed for every proxy measured in the run. */
const GOALS: Goal[] = [
  {
    name: 'throughput / direct', wanted: '>= 0.50x', met: (v) => v >= 0.5, format: times,
    value: (t, d) => t.throughput && d.throughput && t.throughput.rps / d.throughput.rps,
  },
  {
    name: 'throughput / bare-proxy', wanted: '>= 1.30x', met: (v) => v >= 1.3, format: times,
    value: (t, _d, b) => t.throughput && b.throughput && t.throughput.rps / b.throughput.rps,
  },
  {
    name: 'added one-connection p50, ms', wanted: '< 0.100', met: (v) => v < 0.1, format: plusMs,
    value: (t, d) => t.oneConnection && d.oneConnection && t.oneConnection.latency.p50 - d.oneConnection.latency.p50,
  },
  {
    name: 'added stream TTFB p50, ms', wanted: '< 0.300', met: (v) => v < 0.3, format: plusMs,
    value: (t, d) => t.streams && d.streams && t.streams.ttfb.p50 - d.streams.ttfb.p50,
  },
];

function printGoals(direct: TargetResult | undefined, bare: TargetResult | undefined, proxies: TargetResult[]): void {
  if (!direct || direct.skipped !== null || !bare || bare.skipped !== null) {
    console.log('\ntargets: n/a (direct or bare-proxy skipped)');
    return;
  }
  const head = ['target', 'wanted', ...proxies.map((p) => p.name), 'gateway met'];
  const rows = GOALS.map((g) => {
    const cells = proxies.map((p) => {
      const v = g.value(p, direct, bare);
      return v === undefined || Number.isNaN(v) ? '-' : g.format(v);
    });
    const gw = proxies.find((p) => p.name === 'gateway');
    const v = gw && g.value(gw, direct, bare);
    return [g.name, g.wanted, ...cells, v === undefined || Number.isNaN(v) ? '-' : g.met(v) ? 'yes' : 'no'];
  });
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\ntargets, for every proxy in this run (floor: uWS and the gateway\'s upstream pool with no logic; nginx: C)');
  console.log([line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n'));
}

export function printReport(results: TargetResult[]): void {
  const by = (name: string): TargetResult | undefined => results.find((r) => r.name === name);
  const direct = by('direct');
  const bare = by('bare-proxy');
  const gateway = by('gateway');
  const measured = results.filter((r) => r.skipped === null);

  console.log('\n' + table(measured));
  for (const r of results) if (r.skipped !== null) console.log(`SKIPPED ${r.name}: ${r.skipped}`);
  for (const p of measured.flatMap(problems)) console.log(`WARNING ${p}`);

  printGoals(direct, bare, measured.filter((r) => r.name !== 'direct'));
  const rss = gateway?.skipped === null && gateway.rssMiB != null ? `${gateway.rssMiB.toFixed(1)} MiB` : 'n/a';
  console.log(`${'gateway RSS after the run'.padEnd(48)}${rss}`);
  printCpu(measured, gateway, bare, by('floor'));
}

const us = (v: number | null | undefined): string => (v == null ? '-' : v.toFixed(1));

function serverCpu(r: TargetResult | undefined): number | undefined {
  const c = r?.throughput?.cpu;
  if (!c || c.serverMain === null || c.serverOther === null) return undefined;
  return c.serverMain + c.serverOther;
}

/** The server's CPU per request relative to the mock's in the same run: drift in the machine cancels. */
function perMock(r: TargetResult | undefined): number | undefined {
  const server = serverCpu(r);
  const mock = r?.throughput?.cpu?.mock;
  return server === undefined || !mock ? undefined : server / mock;
}

const CPU_COLUMNS: [string, (r: TargetResult) => string][] = [
  ['target', (r) => r.name],
  ['server main', (r) => us(r.throughput?.cpu?.serverMain)],
  ['server other', (r) => us(r.throughput?.cpu?.serverOther)],
  ['mock', (r) => us(r.throughput?.cpu?.mock)],
  ['load gen', (r) => us(r.throughput?.cpu?.loadGenerator)],
  ['server / mock', (r) => { const v = perMock(r); return v === undefined ? '-' : `${v.toFixed(2)}x`; }],
];

function printCpu(measured: TargetResult[], gateway: TargetResult | undefined, bare: TargetResult | undefined,
  floor: TargetResult | undefined): void {
  const rows = measured.filter((r) => r.throughput?.cpu);
  if (rows.length === 0) return;
  const cells = [CPU_COLUMNS.map(([h]) => h), ...rows.map((r) => CPU_COLUMNS.map(([, f]) => f(r)))];
  const widths = CPU_COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row: string[]): string => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nCPU per request in the load run, µs (server other = its worker and GC threads)');
  console.log([line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n'));
  const x = (a: number | undefined, b: number | undefined): string => (a !== undefined && b !== undefined ? `${(a / b).toFixed(2)}x` : 'n/a');
  console.log(`${'gateway / bare-proxy server CPU per request'.padEnd(48)}${x(serverCpu(gateway), serverCpu(bare))}`);
  console.log(`${'  the same, each divided by its run\'s mock CPU'.padEnd(48)}${x(perMock(gateway), perMock(bare))}`);
  console.log(`${'gateway / floor server CPU per request'.padEnd(48)}${x(serverCpu(gateway), serverCpu(floor))}`);
}
