import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SecretMask } from '../../src/lib/secret-mask.js';

const SECRET = 'sk-live-0123456789abcdefghijklmnop';

/** Feeds `text` to a mask in pieces cut at `cuts`, and returns what it hands on, end included. */
function through(text: string, cuts: number[], secret = SECRET): { out: string; pieces: string[] } {
  const mask = new SecretMask(secret);
  const pieces: string[] = [];
  let from = 0;
  for (const at of [...cuts, text.length]) {
    pieces.push(mask.push(Buffer.from(text.slice(from, at))).toString());
    from = at;
  }
  const rest = mask.end();
  if (rest !== null) pieces.push(rest.toString());
  return { out: pieces.join(''), pieces };
}

const stars = (n: number) => '*'.repeat(n);

test('a secret echoed whole in one chunk becomes stars, byte for byte', () => {
  const text = `data: {"error":{"message":"Invalid API key: Bearer ${SECRET}"}}\n\n`;
  const { out } = through(text, []);
  assert.is(out, text.replace(SECRET, stars(SECRET.length)));
  assert.is(out.length, text.length, 'lengths and framing are kept');
});

test('a secret cut at every possible place between two chunks is masked all the same', () => {
  const text = `data: {"debug":"${SECRET}","x":1}\n\ndata: [DONE]\n\n`;
  const want = text.replace(SECRET, stars(SECRET.length));
  for (let cut = 1; cut < text.length; cut++) {
    const { out } = through(text, [cut]);
    assert.is(out, want, `cut at ${cut}`);
    assert.not.ok(out.includes(SECRET.slice(0, 12)), `no probe at ${cut}`);
  }
});

test('a secret spread over many one-byte chunks is masked', () => {
  const text = `x ${SECRET} y ${SECRET}`;
  const { out } = through(text, Array.from({ length: text.length - 1 }, (_, i) => i + 1));
  assert.is(out, `x ${stars(SECRET.length)} y ${stars(SECRET.length)}`);
});

test('an echo cut short after its first 12 bytes is masked as far as it matches', () => {
  const text = `key ${SECRET.slice(0, 20)}... refused`;
  assert.is(through(text, [10]).out, `key ${stars(20)}... refused`);
});

test('text that only begins like the secret is handed on unchanged, once the next chunk shows it is not', () => {
  const text = 'the sk-live-0 model said sk- and sk-live-012x then stopped';
  const { out, pieces } = through(text, [13, 27]);
  assert.is(out, text);
  assert.ok(pieces[0].length < 13, 'a tail that may begin the secret waits for the next chunk');
});

test('ordinary chunks pass as they came, with nothing held back', () => {
  const chunk = 'data: {"choices":[{"delta":{"content":"namaste"}}]}\n\n';
  const mask = new SecretMask(SECRET);
  const b = Buffer.from(chunk);
  assert.is(mask.push(b), b, 'the same buffer, not a copy');
  assert.is(mask.end(), null);
});

/** The mask's rule done the plain way on the whole text: every match of the probe, masked as far as the secret goes on matching. */
function reference(text: string, secret: string): string {
  const c = Buffer.from(text);
  const s = Buffer.from(secret);
  const probe = s.subarray(0, Math.min(12, s.length));
  let from = 0;
  for (let at = c.indexOf(probe, from); at >= 0; at = c.indexOf(probe, from)) {
    let end = at;
    while (end < c.length && end - at < s.length && c[end] === s[end - at]) c[end++] = 0x2a;
    from = end;
  }
  return c.toString();
}

test('random texts full of near-misses, cut at random places, are masked as the plain rule on the whole text says', () => {
  let seed = 42;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  // The search starts at the probe's rarest byte: at its start, inside it, and at its last allowed place.
  const secrets = [SECRET, 'gsk_ABCDEFGHijklmnop1234', 'sk-bench', 'aaaaaaaaab', 'sk-proj-Ab3XyZ00', 'AIzaSyB-12345678', 'sk-ant-api03-abcd', 'zzzzzzzz'];
  for (const secret of secrets) {
    // Near-misses: the probe's tails without the bytes before them, and pieces that end early.
    const parts = [secret, secret.slice(0, 12), secret.slice(0, 5), secret.slice(3), secret.slice(2, 9), secret.slice(8, 12), 'x', '"', 's', '-', 'k', secret[secret.length - 1]];
    for (let round = 0; round < 300; round++) {
      let text = '';
      while (text.length < 80) text += parts[rnd(parts.length)];
      const cuts = [...new Set(Array.from({ length: rnd(5) }, () => 1 + rnd(text.length - 1)))].sort((a, b) => a - b);
      assert.is(through(text, cuts, secret).out, reference(text, secret), `${secret} ${JSON.stringify(text)} cut at ${cuts}`);
    }
  }
});

test.run();
