// Reading what the gateway needs from JSON text without parsing it: the text is a latin1 copy
// of the bytes (one character a byte, so offsets are byte offsets), searched with string
// methods, which stay in V8 where Buffer searches cross into C++ each time.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const COLON = 0x3a;
const U = 0x75;
// `content":` also matches `"reasoning_content":`; `arguments":` is a tool call's text.
const TEXT_KEYS = ['content":', 'arguments":', 'refusal":'];

/**
 * UTF-8 bytes of generated text in a chat answer or stream events: the string values of
 * content, reasoning_content, refusal and tool-call arguments, a JSON escape counted as the
 * bytes it stands for. Keys inside those strings are escaped (`\"content\"`), so never counted.
 */
export function generatedTextBytes(text: string): number {
  let bytes = 0;
  for (const key of TEXT_KEYS) {
    for (let i = text.indexOf(key); i >= 0; i = text.indexOf(key, i)) {
      i += key.length;
      while (text.charCodeAt(i) === SPACE) i++;
      if (text.charCodeAt(i) !== QUOTE) continue;
      const start = i + 1;
      let end = text.indexOf('"', start);
      while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) break;
      bytes += end - start - escapeSavings(text, start, end);
      i = end + 1;
    }
  }
  return bytes;
}

/** Where the `null` value of the key ending at `at` begins (`:` then `null`, spaces allowed), or -1. */
export function nullValueAt(text: string, at: number): number {
  let i = at;
  while (text.charCodeAt(i) === SPACE) i++;
  if (text.charCodeAt(i) !== COLON) return -1;
  i++;
  while (text.charCodeAt(i) === SPACE) i++;
  return text.startsWith('null', i) ? i : -1;
}

function escaped(text: string, quote: number): boolean {
  let n = 0;
  for (let k = quote - 1; text.charCodeAt(k) === BACKSLASH; k--) n++;
  return n % 2 === 1;
}

/** How many more bytes the escapes in text[start, end) take than the UTF-8 they stand for. */
function escapeSavings(text: string, start: number, end: number): number {
  let saved = 0;
  for (let k = text.indexOf('\\', start); k >= 0 && k < end; k = text.indexOf('\\', k)) {
    if (text.charCodeAt(k + 1) === U) {
      const code = Number.parseInt(text.slice(k + 2, k + 6), 16);
      saved += 6 - (code < 0x80 ? 1 : code < 0x800 ? 2 : 3);
      k += 6;
    } else {
      saved += 1;
      k += 2;
    }
  }
  return saved;
}
