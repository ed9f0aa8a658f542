import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundaryOf, encodeMultipart, parseMultipart, textPart, type FormPart } from '../../src/lib/multipart.js';

/** A body and content type as undici's FormData (what fetch and the openai SDK send) frames them. */
async function wire(form: FormData): Promise<{ body: Buffer; type: string }> {
  const r = new Response(form);
  return { body: Buffer.from(await r.arrayBuffer()), type: r.headers.get('content-type')! };
}

function parse(body: Buffer, type: string): FormPart[] {
  const parts = parseMultipart(body, boundaryOf(type)!, 64);
  if (typeof parts === 'string') throw new Error(parts);
  return parts;
}

// Every byte value, CRLFs and dashes included: content must never be mistaken for framing.
const AUDIO = Buffer.concat([Buffer.from('\r\n--\r\n\r\n'), Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from('\r\n--')]);

test('fields and a binary file from FormData come back exactly', async () => {
  const f = new FormData();
  f.append('model', 'whisper-1');
  f.append('file', new Blob([AUDIO], { type: 'audio/wav' }), 'my "take" 2.wav');
  f.append('prompt', 'नमस्ते');
  const { body, type } = await wire(f);
  const parts = parse(body, type);
  assert.equal(parts.map((p) => p.name), ['model', 'file', 'prompt']);
  assert.is(parts[0].data.toString(), 'whisper-1');
  assert.is(parts[0].filename, null);
  assert.is(parts[1].filename, 'my %22take%22 2.wav'); // undici escapes quotes in names as browsers do
  assert.is(parts[1].contentType, 'audio/wav');
  assert.ok(parts[1].data.equals(AUDIO));
  assert.is(parts[2].data.toString(), 'नमस्ते');
});

test('parts re-framed under a new boundary read back the same through undici\'s parser', async () => {
  const f = new FormData();
  f.append('file', new Blob([AUDIO], { type: 'audio/mpeg' }), 'a.mp3');
  f.append('language', 'hi');
  const { body, type } = await wire(f);
  const parts = parse(body, type);
  const out = encodeMultipart([textPart('model', 'Systran/faster-whisper-large-v3'), ...parts.map((p) => p.raw)]);
  assert.match(out.contentType, /^multipart\/form-data; boundary=gw-[0-9a-f]{32}$/);
  const back = await new Response(Buffer.concat(out.body), { headers: { 'content-type': out.contentType } }).formData();
  assert.is(back.get('model'), 'Systran/faster-whisper-large-v3');
  assert.is(back.get('language'), 'hi');
  const file = back.get('file') as File;
  assert.is(file.name, 'a.mp3');
  assert.ok(Buffer.from(await file.arrayBuffer()).equals(AUDIO));
});

test('boundaries: quoted, unquoted, missing, or not a form', () => {
  assert.is(boundaryOf('multipart/form-data; boundary=abc'), 'abc');
  assert.is(boundaryOf('Multipart/Form-Data;boundary="a b:c"'), 'a b:c');
  assert.is(boundaryOf('multipart/form-data'), null);
  assert.is(boundaryOf('application/json'), null);
  assert.is(boundaryOf('multipart/mixed; boundary=abc'), null);
});

test('a body that is not a whole form says why', () => {
  const reason = (s: string) => parseMultipart(Buffer.from(s), 'b', 3);
  assert.is(reason('no boundary here'), 'no opening boundary');
  assert.is(reason('--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--'), 'no closing boundary (the body is cut short)');
  assert.is(reason('--b\r\nContent-Disposition: form-data; name="a"\r\nx\r\n--b--'), 'a field has no blank line after its headers');
  assert.is(reason('--b\r\nContent-Disposition: attachment; name="a"\r\n\r\nx\r\n--b--'), 'a field\'s Content-Disposition is not form-data');
  assert.is(reason('--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--'), 'a field has no name');
  assert.is(reason('--bxyz'), 'a boundary is not followed by a line break');
  const many = `${'--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n'.repeat(4)}--b--`;
  assert.is(reason(many), 'more than 3 fields');
  assert.equal((parseMultipart(Buffer.from('preamble\r\n--b\r\nContent-Disposition: form-data; name=a\r\n\r\n\r\n--b--\r\n'), 'b', 3) as FormPart[])
    .map((p) => [p.name, p.data.length]), [['a', 0]]);
});

test.run();
