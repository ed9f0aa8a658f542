// Prints the comparison table and the targets that matter: what each proxy costs relative to
// calling the provider directly and relative to the bare node:http + undici proxy, so the
// gateway can be read against proxies that do none of its work (the floor, nginx). Figures are
// medians over the rounds; each target's ratio is taken within a round, against the direct and
// bare-proxy runs of that same round, and then the median (and range) of those is shown.
import { grid, median, plusMs, times } from './grid.js';
import { printIssue17 } from './issue17-report.js';
import type { OneConnectionResult } from './one-connection.js';
import type { StreamsResult } from './streams.js';
import type { ThroughputResult } from './throughput.js';

/** One round of one target: each scenario it completed. */
export interface RoundResult {
  throughput?: ThroughputResult;
  oneConnection?: OneConnectionResult;
  streams?: StreamsResult;
  /** The agent-sized body (~200 KB): throughput at its own connection count, and one connection. */
  agent?: ThroughputResult;
  agentOne?: OneConnectionResult;
  /** The agent-sized body streamed (as Codex and Claude Code send their turns). */
  agentStreams?: StreamsResult;
}

export interface TargetResult {
  name: string;
  /** Why the target was not measured; null when it was. */
  skipped: string | null;
  rounds: RoundResult[];
  rssMiB?: number | null;
}

type Metric = (r: RoundResult) => number | undefined;


const over = (t: TargetResult, f: Metric): number | undefined =>
  median(t.rounds.map(f).filter((x): x is number => x !== undefined));

const ms = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(3));

const COLUMNS: [string, (t: TargetResult) => string][] = [
  ['target', (t) => t.name],
  ['req/s', (t) => { const v = over(t, (r) => r.throughput?.rps); return v === undefined ? '-' : v.toFixed(0); }],
  ['p50 ms', (t) => ms(over(t, (r) => r.throughput?.latency.p50))],
  ['p99 ms', (t) => ms(over(t, (r) => r.throughput?.latency.p99))],
  ['1-conn p50', (t) => ms(over(t, (r) => r.oneConnection?.latency.p50))],
  ['1-conn p99', (t) => ms(over(t, (r) => r.oneConnection?.latency.p99))],
  ['TTFB p50', (t) => ms(over(t, (r) => r.streams?.ttfb.p50))],
  ['TTFB p99', (t) => ms(over(t, (r) => r.streams?.ttfb.p99))],
  ['stream p50', (t) => ms(over(t, (r) => r.streams?.total.p50))],
  ['RSS MiB', (t) => (t.rssMiB == null ? '-' : t.rssMiB.toFixed(1))],
];


function problems(t: TargetResult): string[] {
  const out: string[] = [];
  t.rounds.forEach((r, i) => {
    const n = `${t.name} (round ${i + 1})`;
    if (r.throughput && (r.throughput.non2xx || r.throughput.errors)) {
      out.push(`${n}: load run had ${r.throughput.non2xx} non-2xx and ${r.throughput.errors} errors/timeouts`);
    }
    if (r.oneConnection?.failures) out.push(`${n}: ${r.oneConnection.failures} one-connection requests were not 200`);
    if (r.streams?.failures) out.push(`${n}: ${r.streams.failures} streams failed or lacked [DONE]`);
    if (r.agentStreams?.failures) out.push(`${n}: ${r.agentStreams.failures} streamed agent turns failed or lacked their end`);
  });
  return out;
}

interface Goal {
  name: string;
  wanted: string;
  value: (t: RoundResult, direct: RoundResult, bare: RoundResult) => number | undefined;
  met: (v: number) => boolean;
  format: (v: number) => string;
}


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

/** The goal's value in every round where the proxy and both references were measured. */
function perRound(g: Goal, p: TargetResult, direct: TargetResult, bare: TargetResult): number[] {
  const out: number[] = [];
  p.rounds.forEach((r, i) => {
    const d = direct.rounds[i];
    const b = bare.rounds[i];
    const v = d && b ? g.value(r, d, b) : undefined;
    if (v !== undefined && Number.isFinite(v)) out.push(v);
  });
  return out;
}

function printGoals(direct: TargetResult | undefined, bare: TargetResult | undefined, proxies: TargetResult[], rounds: number): void {
  if (!direct || direct.skipped !== null || !bare || bare.skipped !== null) {
    console.log('\ntargets: n/a (direct or bare-proxy skipped)');
    return;
  }
  const head = ['target', 'wanted', ...proxies.map((p) => p.name), 'gateway met'];
  const rows = GOALS.map((g) => {
    const cells = proxies.map((p) => {
      const vs = perRound(g, p, direct, bare);
      const m = median(vs);
      if (m === undefined) return '-';
      return rounds > 1 && vs.length > 1 ? `${g.format(m)} (${g.format(Math.min(...vs))}..${g.format(Math.max(...vs))})` : g.format(m);
    });
    const gw = proxies.find((p) => p.name === 'gateway');
    const m = gw ? median(perRound(g, gw, direct, bare)) : undefined;
    return [g.name, g.wanted, ...cells, m === undefined ? '-' : g.met(m) ? 'yes' : 'no'];
  });
  console.log(`\ntargets: median of ${rounds} round(s), range in brackets; floor = uWS and the gateway's upstream pool with no logic, nginx = C`);
  console.log(grid(head, rows));
}

export function printReport(results: TargetResult[], rounds: number): void {
  const by = (name: string): TargetResult | undefined => results.find((r) => r.name === name);
  const measured = results.filter((r) => r.skipped === null);

  console.log(`\nmedians of ${rounds} round(s)`);
  console.log(grid(COLUMNS.map(([h]) => h), measured.map((t) => COLUMNS.map(([, f]) => f(t)))));
  for (const r of results) if (r.skipped !== null) console.log(`SKIPPED ${r.name}: ${r.skipped}`);
  for (const p of measured.flatMap(problems)) console.log(`WARNING ${p}`);

  printGoals(by('direct'), by('bare-proxy'), measured.filter((r) => r.name !== 'direct'), rounds);
  const gateway = by('gateway');
  const rss = gateway?.skipped === null && gateway.rssMiB != null ? `${gateway.rssMiB.toFixed(1)} MiB` : 'n/a';
  console.log(`${'gateway RSS after the run'.padEnd(48)}${rss}`);
  printCpu(measured, gateway, by('bare-proxy'), by('floor'));
  printAgent(measured, by('direct'), by('bare-proxy'));
  printIssue17(measured);
}

/** Issue 17's agent-sized targets: each ratio taken within a round against that round's bare proxy, then the median. */
function printAgent(measured: TargetResult[], direct: TargetResult | undefined, bare: TargetResult | undefined): void {
  const rows = measured.filter((t) => t.rounds.some((r) => r.agent));
  if (rows.length === 0) return;
  const cpu = (r: RoundResult): number | undefined => {
    const c = r.agent?.cpu;
    return !c || c.serverMain === null || c.serverOther === null ? undefined : c.serverMain + c.serverOther;
  };
  const vsBare = (t: TargetResult, f: Metric): string => {
    if (!bare) return '-';
    const vs = t.rounds.map((r, i) => { const a = f(r); const b = bare.rounds[i] && f(bare.rounds[i]); return a !== undefined && b ? a / b : undefined; })
      .filter((v): v is number => v !== undefined && Number.isFinite(v));
    const m = median(vs);
    return m === undefined ? '-' : vs.length > 1 ? `${times(m)} (${times(Math.min(...vs))}..${times(Math.max(...vs))})` : times(m);
  };
  const added = (t: TargetResult): string => {
    if (!direct) return '-';
    const vs = t.rounds.map((r, i) => { const a = r.agentOne?.latency.p50; const d = direct.rounds[i]?.agentOne?.latency.p50; return a !== undefined && d !== undefined ? a - d : undefined; })
      .filter((v): v is number => v !== undefined);
    const m = median(vs);
    return m === undefined ? '-' : plusMs(m);
  };
  console.log('\nagent-sized bodies (~200 KB each), medians; ratios within each round (issue 17: gateway CPU <= 0.80x and throughput >= 1.20x the bare proxy)');
  console.log(grid(['target', 'req/s', 'server CPU µs (main + other)', 'req/s / bare', 'CPU / bare', '1-conn p50', 'added p50 ms'], rows.map((t) => [
    t.name,
    (over(t, (r) => r.agent?.rps) ?? NaN).toFixed(0),
    `${us(over(t, cpu))} (${us(over(t, (r) => r.agent?.cpu?.serverMain ?? undefined))} + ${us(over(t, (r) => r.agent?.cpu?.serverOther ?? undefined))})`,
    t.name === 'direct' ? '-' : vsBare(t, (r) => r.agent?.rps),
    t.name === 'direct' ? '-' : vsBare(t, cpu),
    ms(over(t, (r) => r.agentOne?.latency.p50)),
    t.name === 'direct' ? '-' : added(t),
  ])));
  for (const t of rows) {
    t.rounds.forEach((r, i) => {
      if (r.agent && (r.agent.non2xx || r.agent.errors)) console.log(`WARNING ${t.name} (round ${i + 1}): agent-sized run had ${r.agent.non2xx} non-2xx and ${r.agent.errors} errors/timeouts`);
      if (r.agentOne?.failures) console.log(`WARNING ${t.name} (round ${i + 1}): ${r.agentOne.failures} agent-sized one-connection requests were not 200`);
    });
  }
}

const us = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(1));

function serverCpu(r: RoundResult): number | undefined {
  const c = r.throughput?.cpu;
  if (!c || c.serverMain === null || c.serverOther === null) return undefined;
  return c.serverMain + c.serverOther;
}

/** The server's CPU per request relative to the mock's in the same run: drift in the machine cancels. */
function perMock(r: RoundResult): number | undefined {
  const server = serverCpu(r);
  const mock = r.throughput?.cpu?.mock;
  return server === undefined || !mock ? undefined : server / mock;
}

const CPU_COLUMNS: [string, (t: TargetResult) => string][] = [
  ['target', (t) => t.name],
  ['server main', (t) => us(over(t, (r) => r.throughput?.cpu?.serverMain ?? undefined))],
  ['server other', (t) => us(over(t, (r) => r.throughput?.cpu?.serverOther ?? undefined))],
  ['mock', (t) => us(over(t, (r) => r.throughput?.cpu?.mock ?? undefined))],
  ['load gen', (t) => us(over(t, (r) => r.throughput?.cpu?.loadGenerator))],
  ['server / mock', (t) => { const v = over(t, perMock); return v === undefined ? '-' : `${v.toFixed(2)}x`; }],
];

function printCpu(measured: TargetResult[], gateway: TargetResult | undefined, bare: TargetResult | undefined,
  floor: TargetResult | undefined): void {
  const rows = measured.filter((t) => t.rounds.some((r) => r.throughput?.cpu));
  if (rows.length === 0) return;
  console.log('\nCPU per request in the load runs, µs, medians (server other = its worker and GC threads)');
  console.log(grid(CPU_COLUMNS.map(([h]) => h), rows.map((t) => CPU_COLUMNS.map(([, f]) => f(t)))));
  const x = (a: TargetResult | undefined, b: TargetResult | undefined, f: Metric): string => {
    const va = a && over(a, f);
    const vb = b && over(b, f);
    return va !== undefined && vb !== undefined ? `${(va / vb).toFixed(2)}x` : 'n/a';
  };
  console.log(`${'gateway / bare-proxy server CPU per request'.padEnd(48)}${x(gateway, bare, serverCpu)}`);
  console.log(`${'  the same, each divided by its run\'s mock CPU'.padEnd(48)}${x(gateway, bare, perMock)}`);
  console.log(`${'gateway / floor server CPU per request'.padEnd(48)}${x(gateway, floor, serverCpu)}`);
}
