// The project's WebAssembly modules (src/lib/wasm/*.wat, committed as base64 by
// scripts/build-wasm.js) are instantiated and grown here: each keeps its own memory.

// The project's compiler settings carry no WebAssembly types (no DOM library): the little used here.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The exports of the module whose bytes are `base64`, instantiated with no imports. */
export function instantiate<T>(base64: string): T {
  return new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(base64, 'base64'))).exports as T;
}

/** Grows `memory` to hold at least `bytes` (views of it made before are then stale). */
export function growTo(memory: WasmMemory, bytes: number): void {
  const have = memory.buffer.byteLength;
  if (have < bytes) memory.grow(Math.ceil((bytes - have) / 65536));
}
