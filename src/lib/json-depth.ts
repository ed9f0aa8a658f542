// How deep a JSON text nests, found without walking the parsed value. V8's JSON.parse takes
// any depth, but much that runs on the parsed value afterwards recurses (JSON.stringify, a
// template string of an array, schema error walkers), and past a few thousand levels that
// overflows the stack: a RangeError, which was a 500 on /me/* and a failed route (breaker
// counted) on inference. Checking the text once after parsing keeps every later step safe.

const BACKSLASH = 0x5c;
const OPEN_SQUARE = 0x5b;
const OPEN_CURLY = 0x7b;
const CLOSE_SQUARE = 0x5d;
const CLOSE_CURLY = 0x7d;

/**
 * Whether valid JSON `text` nests arrays and objects more than `max` levels deep. Strings are
 * jumped over with indexOf (a 1 KB chat body is mostly one string), so only the structural
 * characters between them are looked at one by one. A text no longer than `max` cannot nest
 * deeper than `max` and is not read at all.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let q = text.indexOf('"');
  let i = 0;
  for (;;) {
    const end = q < 0 ? text.length : q;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === OPEN_SQUARE || c === OPEN_CURLY) {
        if (++depth > max) return true;
      } else if (c === CLOSE_SQUARE || c === CLOSE_CURLY) depth--;
    }
    if (q < 0) return false;
    // The closing quote: the next one not escaped by an odd run of backslashes.
    let close = text.indexOf('"', q + 1);
    while (close > 0 && escaped(text, close)) close = text.indexOf('"', close + 1);
    if (close < 0) return false;
    i = close + 1;
    q = text.indexOf('"', i);
  }
}

function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === BACKSLASH) n++;
  return (n & 1) === 1;
}
