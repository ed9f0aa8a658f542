// Random edits of a JSON body (a fixed seed makes them repeat): bytes that matter to a JSON
// scanner changed, inserted, cut, duplicated, and the format's own snippets spliced in.

export const INTERESTING = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c, 0x20, 0x09, 0x0a, 0x0d, 0x00, 0x01, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xe0,
  0xed, 0xf0, 0xff, 0x30, 0x31, 0x39, 0x2d, 0x2b, 0x2e, 0x65, 0x45, 0x75, 0x6e, 0x74, 0x66, 0x61, 0x46];

export function mutate(src: Buffer, r: () => number, snippets: readonly string[]): Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  let b = Buffer.from(src);
  const edits = 1 + Math.floor(r() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(r() * (b.length + 1));
    switch (Math.floor(r() * 6)) {
      case 0: if (at < b.length) b[at] = pick(INTERESTING); break;
      case 1: b = Buffer.concat([b.subarray(0, at), Buffer.from([pick(INTERESTING)]), b.subarray(at)]); break;
      case 2: b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + Math.floor(r() * 8)))]); break;
      case 3: b = Buffer.concat([b.subarray(0, at), Buffer.from(pick(snippets)), b.subarray(at)]); break;
      case 4: b = b.subarray(0, at); break;
      default: {
        const from = Math.floor(r() * b.length);
        b = Buffer.concat([b.subarray(0, at), b.subarray(from, from + Math.floor(r() * 20)), b.subarray(at)]);
      }
    }
  }
  return b;
}
