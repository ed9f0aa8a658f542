import type { AnswerMeter, AnswerMeters, ServedMeter } from '../domain/request-meter.js';
import { OVERHEAD_SECONDS, REQUEST_SECONDS } from './buckets.js';
import { OTHER, type CodeLabels } from './code-labels.js';
import type { Family, HistogramChild, Registry, Scalar } from './registry.js';

interface Outcome {
  readonly status: number;
  /** The answer's code, or OTHER for every code past the cap (CodeLabels). */
  readonly code: string | null;
  readonly count: Scalar;
}

/**
 * One route's answers: its duration child resolved at its first answer (a route never called shows
 * no series: ~80 routes of empty histograms were 1,500 lines a scrape), its (status, code) counters
 * found by a scan of the few seen.
 */
class RouteAnswers implements AnswerMeter {
  readonly #outcomes: Outcome[] = [];
  readonly #route: string;
  readonly #requests: Family<'counter'>;
  readonly #durations: Family<'histogram'>;
  readonly #codes: CodeLabels;
  #duration: HistogramChild | null = null;

  constructor(route: string, requests: Family<'counter'>, durations: Family<'histogram'>, codes: CodeLabels) {
    this.#route = route;
    this.#requests = requests;
    this.#durations = durations;
    this.#codes = codes;
  }

  answered(status: number, code: string | null, seconds: number): void {
    const list = this.#outcomes;
    let o: Outcome | null = null;
    for (let i = 0; i < list.length; i++) {
      if (list[i].status === status && list[i].code === code) {
        o = list[i];
        break;
      }
    }
    if (o === null) o = this.#missed(status, code);
    o.count.value++;
    (this.#duration ??= this.#durations.child(this.#route)).observe(seconds);
  }

  /** An answer no outcome matched: a code past the cap joins its status's `other` outcome, anything else is new. */
  #missed(status: number, code: string | null): Outcome {
    const label = this.#codes.label(code);
    const list = this.#outcomes;
    if (label === OTHER) for (const o of list) if (o.status === status && o.code === OTHER) return o;
    const o = { status, code: label === '' ? null : label, count: this.#requests.child(this.#route, String(status), label) };
    list.push(o);
    return o;
  }
}

/**
 * Every HTTP answer by route, status and error code, refusals included (a bad key, a limit, a
 * malformed body never make a usage row), with its duration; and the gateway's own time on
 * served inference requests.
 */
export class AnswerSeries implements AnswerMeters, ServedMeter {
  readonly #requests;
  readonly #duration;
  readonly #total;
  readonly #overhead;
  readonly #served = new Map<string, { total: HistogramChild; overhead: HistogramChild }>();
  readonly #codes: CodeLabels;

  constructor(reg: Registry, codes: CodeLabels) {
    this.#codes = codes;
    this.#requests = reg.counter('gw_http_requests_total',
      'HTTP answers by route (the path pattern; `other` for unmatched paths), status and error code (empty for none; a stream that ends in an error event keeps its 200 and carries the code).',
      ['route', 'status', 'code']);
    this.#duration = reg.histogram('gw_http_request_duration_seconds',
      'From the request\'s arrival to the end of its answer, by route (streams until their last byte).', ['route'], REQUEST_SECONDS);
    this.#total = reg.histogram('gen_ai_server_request_duration_seconds',
      'Served inference requests, from the handler\'s start (the body read) to the serving attempt\'s end (gen_ai.server.request.duration).',
      ['gen_ai_operation_name'], REQUEST_SECONDS);
    this.#overhead = reg.histogram('gw_overhead_seconds',
      'Served inference requests: the gateway\'s own time, that is the request\'s time less the time spent in upstream attempts.',
      ['endpoint'], OVERHEAD_SECONDS);
  }

  forRoute(route: string): AnswerMeter {
    return new RouteAnswers(route, this.#requests, this.#duration, this.#codes);
  }

  served(endpoint: string, totalMs: number, overheadMs: number): void {
    let s = this.#served.get(endpoint);
    if (s === undefined) this.#served.set(endpoint, s = { total: this.#total.child(endpoint), overhead: this.#overhead.child(endpoint) });
    s.total.observe(totalMs / 1000);
    // Clock steps between two performance.now() readings are sub-microsecond; never below zero.
    s.overhead.observe(overheadMs > 0 ? overheadMs / 1000 : 0);
  }
}
