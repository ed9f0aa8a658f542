import type { WasmMemory } from '../wasm-instance.js';

/** What json-skip.wat exports (lib/json-scan.ts instantiates it; its header says what each does). */
export interface SkipModule {
  memory: WasmMemory;
  compact(from: number, to: number, out: number, min: number, table: number, cap: number, depth: number, max: number): number;
  value(from: number, to: number, depth: number, max: number): number;
  elements(from: number, to: number, key: number, keyLength: number, key2: number, key2Length: number, key3: number, key3Length: number,
    out: number, cap: number, depth: number, max: number): number;
  records(from: number, to: number, keys: number, count: number, out: number, cap: number, depth: number, max: number): number;
  nest(key: number, keys: number, count: number, out: number, end: number): void;
  plain(at: number, count: number): number;
  spans(cmds: number, end: number, consts: number, out: number): number;
  instring(from: number, to: number, stack: number, cap: number): number;
  conversation(msgs: number, count: number, cmds: number, cap: number, consts: number, stack: number, keyCap: number, first: number,
    body: number, keys: number, parts: number, partsCap: number, max: number): number;
  items(recs: number, count: number, cmds: number, cap: number, consts: number, body: number, keys: number, parts: number, partsCap: number,
    max: number): number;
}
