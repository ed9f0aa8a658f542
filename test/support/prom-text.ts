/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for the tests (no Prometheus
 * parser is installed: prom-client writes the format, it does not read it). Written to the spec
 * (prometheus.io/docs/instrumenting/exposition_formats/#text-based-format), and stricter than
 * Prometheus where the spec says "should": it throws on any line it cannot read, a TYPE after a
 * family's samples or twice, a family whose lines are not together, a repeated series, a label
 * twice in one series, escapes other than \\ \" \n, histogram buckets without `le`, not
 * cumulative, or whose +Inf bucket differs from `_count`.
 */

export type PromType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp: number | null;
}

export interface PromFamily {
  name: string;
  type: PromType;
  help: string | null;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set<PromType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export class PromParseError extends Error {}

/** Parses a whole exposition; the families by name. */
export function parsePromText(text: string): Map<string, PromFamily> {
  if (text.length > 0 && !text.endsWith('\n')) throw new PromParseError('the exposition must end with a line feed');
  const families = new Map<string, PromFamily>();
  /** Families whose lines have ended (another family's line came after them). */
  const closed = new Set<string>();
  let current: string | null = null;
  const family = (name: string, lineNo: number): PromFamily => {
    if (current !== name) {
      if (closed.has(name) || (families.has(name) && current !== name)) throw new PromParseError(`line ${lineNo}: the lines of ${name} are not together`);
      if (current !== null) closed.add(current);
      current = name;
    }
    let f = families.get(name);
    if (f === undefined) families.set(name, f = { name, type: 'untyped', help: null, samples: [] });
    return f;
  };
  const seen = new Set<string>();
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const n = i + 1;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#[ \t]+(HELP|TYPE)[ \t]+([^ \t]+)(?:[ \t]+(.*))?$/.exec(line);
      if (m === null) return; // a plain comment
      const [, kind, name, rest = ''] = m;
      if (!NAME.test(name) || NAME.exec(name)![0] !== name) throw new PromParseError(`line ${n}: '${name}' is not a metric name`);
      const f = family(name, n);
      if (kind === 'HELP') {
        if (f.help !== null) throw new PromParseError(`line ${n}: a second HELP for ${name}`);
        f.help = unescape(rest, false, n);
      } else {
        if (f.samples.length > 0) throw new PromParseError(`line ${n}: TYPE of ${name} after its samples`);
        if (f.type !== 'untyped' || (f as { typed?: boolean }).typed) throw new PromParseError(`line ${n}: a second TYPE for ${name}`);
        if (!TYPES.has(rest as PromType)) throw new PromParseError(`line ${n}: unknown type '${rest}'`);
        f.type = rest as PromType;
        (f as { typed?: boolean }).typed = true;
      }
      return;
    }
    const s = parseSample(line, n);
    const owner = ownerOf(s.name, families, current);
    const f = family(owner, n);
    const key = `${s.name}{${Object.keys(s.labels).sort().map((k) => `${k}=${JSON.stringify(s.labels[k])}`).join(',')}}`;
    if (seen.has(key)) throw new PromParseError(`line ${n}: series ${key} appears twice`);
    seen.add(key);
    f.samples.push(s);
  });
  for (const f of families.values()) {
    delete (f as { typed?: boolean }).typed;
    if (f.type === 'histogram') checkHistogram(f);
  }
  return families;
}

/** The family a sample belongs to: a histogram's or summary's `_bucket`, `_sum` and `_count` belong to it. */
function ownerOf(name: string, families: Map<string, PromFamily>, current: string | null): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const f = families.get(base);
    if (f !== undefined && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket')) && base === current) return base;
  }
  return name;
}

function parseSample(line: string, n: number): Sample {
  let rest = line;
  const name = NAME.exec(rest)?.[0];
  if (name === undefined) throw new PromParseError(`line ${n}: no metric name in '${line}'`);
  rest = rest.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    for (;;) {
      rest = rest.replace(/^[ \t]*/, '');
      if (rest.startsWith('}')) {
        rest = rest.slice(1);
        break;
      }
      const label = LABEL.exec(rest)?.[0];
      if (label === undefined) throw new PromParseError(`line ${n}: bad label name at '${rest}'`);
      rest = rest.slice(label.length).replace(/^[ \t]*/, '');
      if (!rest.startsWith('="')) throw new PromParseError(`line ${n}: expected =" after ${label}`);
      rest = rest.slice(2);
      let raw = '';
      for (;;) {
        if (rest.length === 0) throw new PromParseError(`line ${n}: unterminated label value`);
        const c = rest[0];
        if (c === '"') break;
        if (c === '\\') {
          raw += rest.slice(0, 2);
          rest = rest.slice(2);
        } else {
          raw += c;
          rest = rest.slice(1);
        }
      }
      rest = rest.slice(1);
      if (label in labels) throw new PromParseError(`line ${n}: label ${label} twice`);
      labels[label] = unescape(raw, true, n);
      rest = rest.replace(/^[ \t]*/, '');
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) throw new PromParseError(`line ${n}: expected , or } at '${rest}'`);
    }
  }
  const parts = rest.trim().split(/[ \t]+/);
  if (!/^[ \t]/.test(rest) || parts.length < 1 || parts.length > 2) throw new PromParseError(`line ${n}: expected a value (and a timestamp) in '${line}'`);
  const value = parseValue(parts[0], n);
  let timestamp: number | null = null;
  if (parts.length === 2) {
    if (!/^-?\d+$/.test(parts[1])) throw new PromParseError(`line ${n}: bad timestamp '${parts[1]}'`);
    timestamp = Number(parts[1]);
  }
  return { name, labels, value, timestamp };
}

function parseValue(s: string, n: number): number {
  if (s === 'NaN') return NaN;
  if (s === '+Inf' || s === 'Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw new PromParseError(`line ${n}: '${s}' is not a float`);
  return Number(s);
}

function unescape(s: string, quotes: boolean, n: number): string {
  return s.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && quotes) return '"';
    throw new PromParseError(`line ${n}: bad escape \\${c}`);
  });
}

function checkHistogram(f: PromFamily): void {
  const groups = new Map<string, { buckets: { le: number; v: number }[]; sum?: number; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    let g = groups.get(key);
    if (g === undefined) groups.set(key, g = { buckets: [] });
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new PromParseError(`${f.name}: a bucket without le`);
      g.buckets.push({ le: parseValue(le, 0), v: s.value });
    } else if (s.name === `${f.name}_sum`) g.sum = s.value;
    else if (s.name === `${f.name}_count`) g.count = s.value;
    else throw new PromParseError(`${f.name}: sample ${s.name} in a histogram`);
  }
  for (const [key, g] of groups) {
    const inf = g.buckets.find((b) => b.le === Infinity);
    if (inf === undefined || g.count === undefined || g.sum === undefined) throw new PromParseError(`${f.name}${key}: needs a +Inf bucket, _sum and _count`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (g.buckets[i].le <= g.buckets[i - 1].le) throw new PromParseError(`${f.name}${key}: buckets not in increasing le`);
      if (g.buckets[i].v < g.buckets[i - 1].v) throw new PromParseError(`${f.name}${key}: buckets not cumulative`);
    }
    if (inf.v !== g.count) throw new PromParseError(`${f.name}${key}: +Inf bucket ${inf.v} is not _count ${g.count}`);
  }
}

/** The value of the one sample named `name` whose labels are exactly `labels`; undefined when none. */
export function sampleValue(families: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      const keys = Object.keys(s.labels);
      if (keys.length === Object.keys(labels).length && keys.every((k) => s.labels[k] === labels[k])) return s.value;
    }
  }
  return undefined;
}

/** The sum of the samples named `name` whose labels include `where`. */
export function sampleSum(families: Map<string, PromFamily>, name: string, where: Record<string, string> = {}): number {
  let total = 0;
  for (const f of families.values()) {
    for (const s of f.samples) if (s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)) total += s.value;
  }
  return total;
}
