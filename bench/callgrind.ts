// Reads callgrind dumps: instructions per thread, and each function's own instructions with
// V8's JIT code named from the process's perf map (node --perf-basic-prof).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const KEEP_TIERS = process.env.IR_TIERS === '1';

export interface ThreadCount {
  thread: number;
  instructions: number;
}

/** `summary:` of every thread file of dump `part` (callgrind --separate-threads=yes names them `<base>.<part>-<thread>`). */
export function threadCounts(dir: string, part: number): ThreadCount[] {
  const out: ThreadCount[] = [];
  const suffix = new RegExp(`\\.${part}-(\\d+)$`);
  for (const file of readdirSync(dir)) {
    const m = suffix.exec(file);
    if (!m) continue;
    const s = /^summary: (\d+)$/m.exec(readFileSync(join(dir, file), 'utf8'));
    if (s) out.push({ thread: Number(m[1]), instructions: Number(s[1]) });
  }
  return out.sort((a, b) => a.thread - b.thread);
}

interface Range {
  start: number;
  size: number;
  name: string;
}

function perfMap(path: string): Range[] {
  if (!existsSync(path)) return [];
  const out: Range[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m) out.push({ start: parseInt(m[1], 16), size: parseInt(m[2], 16), name: m[3] });
  }
  return out.sort((a, b) => a.start - b.start);
}

function symbolizer(ranges: Range[]): (name: string) => string {
  return (name) => {
    if (ranges.length === 0 || !/^0x[0-9a-f]+$/.test(name)) return name;
    const addr = parseInt(name, 16);
    let lo = 0;
    let hi = ranges.length - 1;
    let best: Range | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ranges[mid].start <= addr) {
        best = ranges[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // One JS function's tiers (~ interpreted, ^ baseline, + Maglev, * TurboFan) are one function
    // here, unless IR_TIERS=1 asks which tier the counted requests ran in.
    return best !== null && addr < best.start + best.size ? (KEEP_TIERS ? best.name : best.name.replace(/^JS:[~^+*]/, 'JS:')) : name;
  };
}

/** Each function's own instructions (calls excluded) in one callgrind file, largest first. */
export function selfCosts(file: string, perfMapPath: string | null): [string, number][] {
  return [...callGraph(file, perfMapPath).self].sort((a, b) => b[1] - a[1]);
}

/**
 * A callgrind file's functions, named (JIT code through the perf map, so the code objects of one
 * JS function are merged): each one's own instructions, and the instructions of each call arc
 * (caller to callee, the callee's inclusive cost as callgrind measured it on that arc).
 */
export interface CallGraph {
  self: Map<string, number>;
  /** caller -> callee -> instructions spent in the callee (and below) when called from there. */
  arcs: Map<string, Map<string, number>>;
  /** How many times each function was called (from anywhere). */
  calls: Map<string, number>;
}

export function callGraph(file: string, perfMapPath: string | null): CallGraph {
  const names = new Map<string, string>();
  const named = (ref: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(ref);
    if (!m) return ref;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? m[1];
  };
  const self = new Map<string, number>();
  const arcs = new Map<string, Map<string, number>>();
  let fn: string | null = null;
  let callee: string | null = null;
  let callCost = false;
  const calls = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = named(line.slice(3));
    else if (line.startsWith('cfn=')) callee = named(line.slice(4));
    else if (line.startsWith('calls=')) {
      callCost = true;
      if (callee !== null) calls.set(callee, (calls.get(callee) ?? 0) + Number(line.slice(6, line.indexOf(' '))));
    }
    else if (fn !== null && /^[+\-*0-9]/.test(line)) {
      const parts = line.trim().split(/\s+/);
      const n = parts.length >= 2 ? Number(parts[parts.length - 1]) : 0;
      // The line after calls= is the call's inclusive cost, not the caller's own.
      if (callCost) {
        callCost = false;
        if (callee !== null) {
          let out = arcs.get(fn);
          if (out === undefined) arcs.set(fn, (out = new Map()));
          out.set(callee, (out.get(callee) ?? 0) + n);
        }
        continue;
      }
      self.set(fn, (self.get(fn) ?? 0) + n);
    }
  }
  const sym = symbolizer(perfMapPath === null ? [] : perfMap(perfMapPath));
  const merged: CallGraph = { self: new Map(), arcs: new Map(), calls: new Map() };
  for (const [name, n] of calls) {
    const k = sym(name);
    merged.calls.set(k, (merged.calls.get(k) ?? 0) + n);
  }
  for (const [name, n] of self) {
    const k = sym(name);
    merged.self.set(k, (merged.self.get(k) ?? 0) + n);
  }
  for (const [from, out] of arcs) {
    const f = sym(from);
    let m = merged.arcs.get(f);
    if (m === undefined) merged.arcs.set(f, (m = new Map()));
    for (const [to, n] of out) {
      const t = sym(to);
      m.set(t, (m.get(t) ?? 0) + n);
    }
  }
  return merged;
}

/**
 * Inclusive instructions per function: its own plus those of every call it makes to another
 * function (calls to itself, or between code objects of the same JS function, are left out).
 * Approximate where calls recurse through other functions (a JS function called back from the
 * runtime it called counts twice), so read it for the functions that own the work, not as a sum.
 */
export function inclusiveCosts(g: CallGraph): [string, number][] {
  const out = new Map<string, number>();
  for (const [name, n] of g.self) out.set(name, n);
  for (const [from, callees] of g.arcs) {
    let sum = 0;
    for (const [to, n] of callees) if (to !== from) sum += n;
    out.set(from, (out.get(from) ?? 0) + sum);
  }
  return [...out].sort((a, b) => b[1] - a[1]);
}

/** The callees of functions whose names match `pattern`, with what each call arc cost, largest first. */
export function calleesOf(g: CallGraph, pattern: RegExp): [string, number][] {
  const out = new Map<string, number>();
  for (const [from, callees] of g.arcs) {
    if (!pattern.test(from)) continue;
    for (const [to, n] of callees) if (to !== from) out.set(to, (out.get(to) ?? 0) + n);
  }
  return [...out].sort((a, b) => b[1] - a[1]);
}

/**
 * Of a main thread's instructions, those spent in timer callbacks and worker-thread messages (work
 * that comes with wall time, not with requests) and in garbage collection, from inclusive costs.
 */
export function backgroundShare(g: CallGraph): { timers: number; gc: number } {
  const inclusive = new Map(inclusiveCosts(g));
  const sum = (names: RegExp): number => {
    let n = 0;
    for (const [name, ir] of inclusive) if (names.test(name)) n += ir;
    return n;
  };
  return {
    timers: sum(/^JS:processTimers |^JS: node:internal\/per_context\/messageport:/),
    gc: sum(/^v8::internal::Heap::CollectGarbage\(/),
  };
}
