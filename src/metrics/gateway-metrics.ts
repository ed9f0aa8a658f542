import type { BreakerState } from '../domain/breaker-state.js';
import type { AnswerMeter, AnswerMeters, ServedMeter } from '../domain/request-meter.js';
import type { UsageRecord, UsageSink } from '../domain/usage-record.js';
import { AnswerSeries } from './answer-series.js';
import { LEDGER_WRITE_SECONDS } from './buckets.js';
import { CodeLabels } from './code-labels.js';
import { ProcessSeries } from './process-series.js';
import { Registry } from './registry.js';
import { UsageSeries } from './usage-series.js';

/** What the metrics read when scraped, from parts the composition root owns. */
export interface MetricsSources {
  /** Catalog models and providers: other ids are labelled `other`, so callers cannot grow the series without bound. */
  knownModel(id: string): boolean;
  knownProvider(id: string): boolean;
  /** The catalog's configured routes and their circuits. */
  breakers(): Iterable<{ route: string; provider: string; state: BreakerState }>;
  /** The ledger batcher: records appended and not yet committed, batches spooled (PostgreSQL), records committed. */
  ledger(): { pending: number; spooled: number; written: number };
  /** Upstream connection pools, summed over providers. */
  upstream(): { open: number; busy: number; queued: number; h2_sessions: number; h2_streams: number };
  /** The tracer's spans, exported and dropped; absent when traces are off (no series then). */
  traces?: () => { exported: number; dropped: number };
  version: string;
}

const BREAKER_STATES: readonly BreakerState[] = ['closed', 'open', 'half_open'];

/**
 * The gateway's metrics: a tee of the usage sink (one record per upstream attempt), the HTTP
 * layer's answers, the data plane's served-request timings, the gate's refusals, the ledger's
 * writes, and gauges read on scrape. Built only when metrics.enabled; otherwise none of these
 * hooks exist and nothing on the request path measures anything.
 *
 * Cost on the pass-through path (bench:instructions, 3,000 requests under callgrind, the main
 * thread's own work): 86.9k -> 87.6-87.9k instructions a plain answer, 118.2k -> 120.5-121.0k a
 * 20-chunk stream, 1-2.4% (docs/operations.md, What collecting costs).
 */
export class GatewayMetrics implements UsageSink, AnswerMeters, ServedMeter {
  readonly #reg = new Registry();
  readonly #usage: UsageSeries;
  readonly #answers: AnswerSeries;
  readonly #process: ProcessSeries;
  readonly #refusals;
  readonly #ledgerWrites;

  constructor(src: MetricsSources) {
    const reg = this.#reg;
    reg.gauge('gw_build_info', 'The gateway\'s version; always 1.', ['version']).child(src.version).set(1);
    // One bound for both: an answer's code and its attempts' codes are mostly the same.
    const codes = new CodeLabels();
    this.#answers = new AnswerSeries(reg, codes);
    this.#usage = new UsageSeries(reg, (id) => src.knownModel(id), (id) => src.knownProvider(id), codes);
    this.#refusals = reg.counter('gw_limit_rejections_total',
      'Requests the limits gate refused, by error code (rate_limit_exceeded, daily_limit_reached, budget_exceeded, insufficient_credits, overloaded, unavailable).',
      ['code']);
    const breaker = reg.gauge('gw_circuit_breaker_state', 'Circuit of each configured catalog route: 1 for its current state, 0 for the others.',
      ['route', 'provider', 'state']);
    breaker.collect = () => {
      for (const b of src.breakers()) for (const s of BREAKER_STATES) breaker.child(b.route, b.provider, s).set(b.state === s ? 1 : 0);
    };
    const pending = reg.gauge('gw_ledger_pending_records', 'Usage records appended and not yet committed by the ledger writer (queue depth).');
    const spooled = reg.gauge('gw_ledger_spooled_batches', 'Batches waiting in the local spool for PostgreSQL to answer again (0 on SQLite).');
    const written = reg.counter('gw_ledger_written_records_total', 'Usage records the ledger writer committed.');
    pending.collect = () => {
      const l = src.ledger();
      pending.child().set(l.pending);
      spooled.child().set(l.spooled);
      written.child().set(l.written);
    };
    this.#ledgerWrites = reg.histogram('gw_ledger_write_duration_seconds',
      'From a batch handed to the ledger writer to its commit (retries included; a spooled batch: until spooled).', [], LEDGER_WRITE_SECONDS).child();
    const upstream = reg.gauge('gw_upstream_connections', 'Sockets to catalog providers: open, busy (carrying a request), and requests queued for one.',
      ['state']);
    upstream.collect = () => {
      const u = src.upstream();
      upstream.child('open').set(u.open);
      upstream.child('busy').set(u.busy);
      upstream.child('queued').set(u.queued);
    };
    const h2 = reg.gauge('gw_upstream_h2', 'HTTP/2 to catalog providers (upstream.http2): sessions, one socket each, and the requests in flight over them.',
      ['state']);
    h2.collect = () => {
      const u = src.upstream();
      h2.child('sessions').set(u.h2_sessions);
      h2.child('streams').set(u.h2_streams);
    };
    const traces = src.traces;
    if (traces !== undefined) {
      const spans = reg.counter('gw_trace_spans_total', 'OpenTelemetry spans the OTLP collector took (exported), and spans lost to a slow, absent or refusing collector (dropped).',
        ['outcome']);
      spans.collect = () => {
        const t = traces();
        spans.child('exported').set(t.exported);
        spans.child('dropped').set(t.dropped);
      };
    }
    this.#process = new ProcessSeries(reg);
  }

  record(r: UsageRecord): void {
    this.#usage.record(r);
  }

  forRoute(route: string): AnswerMeter {
    return this.#answers.forRoute(route);
  }

  served(endpoint: string, totalMs: number, overheadMs: number): void {
    this.#answers.served(endpoint, totalMs, overheadMs);
  }

  /** A refusal of the limits gate. */
  refused(code: string): void {
    this.#refusals.child(code).inc();
  }

  /** A ledger batch committed (or spooled) `ms` after it was handed to the writer. */
  ledgerWritten(ms: number): void {
    this.#ledgerWrites.observe(ms / 1000);
  }

  /** The exposition text. */
  render(): string {
    return this.#reg.render();
  }

  stop(): void {
    this.#process.stop();
  }
}
