// Random values for the JSON writers' tests (json-write, json-bytes), held to JSON.stringify.

// Characters that need escaping, that look like they might (U+010A and U+0122 end in a newline's
// and a quote's byte), surrogates paired and alone, and ordinary text of one and two bytes.
export const SPECIAL = ['"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u00e9', '\u010a', '\u0122',
  '\u2028', '\u2029', '\ud83d\ude00', '\ud83d', '\ude00', 'न', '/', ' ', '<', '\u00ff', '\u0100'];

export function randomString(r: () => number): string {
  const plain = r() < 0.5;
  const n = r() < 0.3 ? Math.floor(r() * 8) : r() < 0.7 ? 20 + Math.floor(r() * 40) : 200 + Math.floor(r() * 3000);
  let s = '';
  while (s.length < n) {
    if (!plain && r() < 0.05) s += SPECIAL[Math.floor(r() * SPECIAL.length)];
    else s += String.fromCharCode(0x20 + Math.floor(r() * 0x5e)).replace(/["\\]/, 'a');
  }
  // A plain long string now and then ends in one special character: the check must see the last one.
  return !plain || r() < 0.8 ? s : s + SPECIAL[Math.floor(r() * SPECIAL.length)];
}

export function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 4 || k < 0.35) return randomString(r);
  if (k < 0.45) {
    const pick = [0, -0, 1, -1.5, 1e21, 1e-7, 123456789.123, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, Math.PI];
    return pick[Math.floor(r() * pick.length)];
  }
  if (k < 0.5) return r() < 0.5;
  if (k < 0.55) return null;
  if (k < 0.6) return [undefined, () => 1, Symbol('s')][Math.floor(r() * 3)];
  if (k < 0.75) return Array.from({ length: Math.floor(r() * 5) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const members = Math.floor(r() * 6);
  for (let i = 0; i < members; i++) {
    const name = r() < 0.2 ? String(Math.floor(r() * 20)) : r() < 0.2 ? randomString(r) : ['role', 'content', 'type', 'text', 'model'][Math.floor(r() * 5)];
    o[name] = randomValue(r, depth + 1);
  }
  return o;
}
