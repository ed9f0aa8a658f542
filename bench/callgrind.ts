// Reads callgrind dumps: instructions per thread, and each function's own instructions with
// V8's JIT code named from the process's perf map (node --perf-basic-prof).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
    return best !== null && addr < best.start + best.size ? best.name : name;
  };
}

/** Each function's own instructions (calls excluded) in one callgrind file, largest first. */
export function selfCosts(file: string, perfMapPath: string | null): [string, number][] {
  const names = new Map<string, string>();
  const named = (ref: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(ref);
    if (!m) return ref;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? m[1];
  };
  const self = new Map<string, number>();
  let fn: string | null = null;
  let callCost = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = named(line.slice(3));
    else if (line.startsWith('cfn=')) named(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (fn !== null && /^[+\-*0-9]/.test(line)) {
      // The line after calls= is the call's inclusive cost, not the caller's own.
      if (callCost) {
        callCost = false;
        continue;
      }
      const parts = line.trim().split(/\s+/);
      if (parts.length >= 2) self.set(fn, (self.get(fn) ?? 0) + Number(parts[parts.length - 1]));
    }
  }
  const sym = symbolizer(perfMapPath === null ? [] : perfMap(perfMapPath));
  const merged = new Map<string, number>();
  for (const [name, n] of self) {
    const k = sym(name);
    merged.set(k, (merged.get(k) ?? 0) + n);
  }
  return [...merged].sort((a, b) => b[1] - a[1]);
}
