// Prints the comparison table and the ratios that matter: what the gateway costs relative to
// calling the provider directly and relative to the thinnest possible proxy.
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

function ratio(name: string, value: (g: TargetResult, base: TargetResult) => number | undefined,
  target: TargetResult | undefined, base: TargetResult | undefined, unit: string): string {
  const label = name.padEnd(48);
  if (!target || target.skipped !== null) return `${label}n/a (${target?.name ?? 'target'} skipped)`;
  if (!base || base.skipped !== null) return `${label}n/a (${base?.name ?? 'baseline'} skipped)`;
  const v = value(target, base);
  return `${label}${v === undefined || Number.isNaN(v) ? '-' : unit === 'x' ? `${v.toFixed(2)}x` : `${v >= 0 ? '+' : ''}${v.toFixed(3)} ms`}`;
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

  const rps = (t: TargetResult, b: TargetResult) => t.throughput && b.throughput && t.throughput.rps / b.throughput.rps;
  const oneP50 = (t: TargetResult, b: TargetResult) =>
    t.oneConnection && b.oneConnection && t.oneConnection.latency.p50 - b.oneConnection.latency.p50;
  const ttfbP50 = (t: TargetResult, b: TargetResult) => t.streams && b.streams && t.streams.ttfb.p50 - b.streams.ttfb.p50;

  console.log('\nratios');
  console.log(ratio('gateway / direct throughput', rps, gateway, direct, 'x'));
  console.log(ratio('gateway / bare-proxy throughput', rps, gateway, bare, 'x'));
  console.log(ratio('bare-proxy / direct throughput', rps, bare, direct, 'x'));
  console.log(ratio('gateway added one-connection p50 vs direct', oneP50, gateway, direct, 'ms'));
  console.log(ratio('bare-proxy added one-connection p50 vs direct', oneP50, bare, direct, 'ms'));
  console.log(ratio('gateway added stream TTFB p50 vs direct', ttfbP50, gateway, direct, 'ms'));
  console.log(ratio('bare-proxy added stream TTFB p50 vs direct', ttfbP50, bare, direct, 'ms'));
  const rss = gateway?.skipped === null && gateway.rssMiB != null ? `${gateway.rssMiB.toFixed(1)} MiB` : 'n/a';
  console.log(`${'gateway RSS after the run'.padEnd(48)}${rss}`);
  printCpu(measured, gateway, bare);
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

function printCpu(measured: TargetResult[], gateway: TargetResult | undefined, bare: TargetResult | undefined): void {
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
}
