/**
 * A small Prometheus registry: families of counters, gauges and histograms, each child resolved
 * once for its label values and kept, so that counting on the request path is a property add
 * (and, for a histogram, a scan of a fixed bucket array); the text exposition format (0.0.4) is
 * written only when /metrics is scraped.
 *
 * Hand-written: prom-client is not installed (no package was added for this), so it could not be
 * measured against; its labelled inc(labels) hashes the label object on every call, which the
 * children here, resolved once per label set and kept by their callers, never do. What collecting
 * costs the request path is measured in docs/operations.md.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** A counter or gauge child: one series. */
export class Scalar {
  value = 0;

  inc(n = 1): void {
    this.value += n;
  }

  set(v: number): void {
    this.value = v;
  }
}

/** A histogram child: per-bucket counts (not cumulative until rendered), the sum and the count. */
export class HistogramChild {
  readonly #bounds: Float64Array;
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: Float64Array) {
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(v: number): void {
    const b = this.#bounds;
    let i = 0;
    while (i < b.length && v > b[i]) i++;
    // Past the last bound: counted only in +Inf, which is the count.
    if (i < b.length) this.counts[i]++;
    this.sum += v;
    this.count++;
  }
}

type Child<T extends MetricType> = T extends 'histogram' ? HistogramChild : Scalar;

/** One metric: its name, help, type, label names and the children made so far. */
export class Family<T extends MetricType = MetricType> {
  readonly #children = new Map<string, { values: readonly string[]; child: Child<T> }>();
  readonly #bounds: Float64Array | null;
  /** Fills in values at scrape time (gauges read from elsewhere: breakers, the ledger, the process). */
  collect: (() => void) | null = null;
  /** Counted in a smaller unit than exposed (rupees kept as integer micro-rupees, so sums stay exact): divided at render. */
  divisor = 1;

  constructor(readonly name: string, readonly help: string, readonly type: T, readonly labelNames: readonly string[],
    buckets: readonly number[] | null) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`metric name ${name} is not a Prometheus name`);
    for (const l of labelNames) if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(l) || l.startsWith('__') || l === 'le') throw new Error(`label ${l} of ${name}`);
    this.#bounds = buckets === null ? null : Float64Array.from([...buckets].sort((a, b) => a - b));
  }

  /** The child for these label values (in labelNames order), made on first use; callers keep it. */
  child(...values: string[]): Child<T> {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes ${this.labelNames.length} label values`);
    const key = values.join('\u0000');
    let entry = this.#children.get(key);
    if (entry === undefined) {
      const child = (this.#bounds === null ? new Scalar() : new HistogramChild(this.#bounds)) as Child<T>;
      entry = { values, child };
      this.#children.set(key, entry);
    }
    return entry.child;
  }

  /** Drops every child (a gauge whose label sets are rebuilt at each scrape). */
  reset(): void {
    this.#children.clear();
  }

  /** The family in the text format: HELP, TYPE, then one line per series (histograms: buckets, sum, count). */
  render(): string {
    this.collect?.();
    let out = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${this.type}\n`;
    for (const { values, child } of this.#children.values()) {
      const labels = this.labelNames.map((n, i) => `${n}="${escapeValue(values[i])}"`);
      if (child instanceof Scalar) {
        out += `${this.name}${braces(labels)} ${num(child.value / this.divisor)}\n`;
        continue;
      }
      const bounds = this.#bounds!;
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += child.counts[i];
        out += `${this.name}_bucket${braces([...labels, `le="${num(bounds[i])}"`])} ${num(cumulative)}\n`;
      }
      out += `${this.name}_bucket${braces([...labels, 'le="+Inf"'])} ${num(child.count)}\n`;
      out += `${this.name}_sum${braces(labels)} ${num(child.sum)}\n`;
      out += `${this.name}_count${braces(labels)} ${num(child.count)}\n`;
    }
    return out;
  }
}

/** The families of one process, rendered in the order they were declared. */
export class Registry {
  readonly #families: Family[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Family<'counter'> {
    if (!name.endsWith('_total')) throw new Error(`counter ${name} must end in _total`);
    return this.#add(new Family(name, help, 'counter', labelNames, null));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Family<'gauge'> {
    return this.#add(new Family(name, help, 'gauge', labelNames, null));
  }

  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Family<'histogram'> {
    return this.#add(new Family(name, help, 'histogram', labelNames, buckets));
  }

  #add<T extends MetricType>(f: Family<T>): Family<T> {
    if (this.#families.some((g) => g.name === f.name)) throw new Error(`metric ${f.name} declared twice`);
    this.#families.push(f as unknown as Family);
    return f;
  }

  /** The exposition text (text/plain; version=0.0.4). */
  render(): string {
    let out = '';
    for (const f of this.#families) out += f.render();
    return out;
  }
}

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function braces(labels: readonly string[]): string {
  return labels.length === 0 ? '' : `{${labels.join(',')}}`;
}

/** Go's float formatting as Prometheus reads it: integers without a point, and the special values spelled its way. */
function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function escapeValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
