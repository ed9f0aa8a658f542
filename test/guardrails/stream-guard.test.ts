import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Guard } from '../../src/guardrails/guard.js';
import { StreamGuard } from '../../src/guardrails/stream-guard.js';
import { parsePolicyText } from '../../src/lib/guardrail-policy.js';

const guard = (text: string): StreamGuard => new StreamGuard(new Guard(parsePolicyText(text).policy!));
const event = (content: string | null, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm',
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }] })}\n\n`;

/** Every byte of `events` pushed through a guard in pieces of `size` bytes; the client's text and raw output. */
function run(g: StreamGuard, events: string, size: number): { text: string; raw: string } {
  const bytes = Buffer.from(events);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(g.push(bytes.subarray(i, i + size)));
  out.push(g.flush());
  const raw = Buffer.concat(out).toString('utf8');
  const text = raw.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
  return { text, raw };
}

test('a match split across events is redacted whole, however the bytes are cut, and multi-byte text survives any cut', () => {
  const events = event('नमस्ते, आपका आधार 2341 23') + event('41 2346 है और PAN ABCPE') + event('1234F है।') + event(null, 'stop') + 'data: [DONE]\n\n';
  for (const size of [1, 2, 3, 7, 64, 10_000]) {
    const { text, raw } = run(guard('redact=aadhaar,pan;outputs'), events, size);
    assert.is(text, 'नमस्ते, आपका आधार [REDACTED:aadhaar] है और PAN [REDACTED:pan] है।', `pieces of ${size}`);
    assert.not.ok(raw.includes('\ufffd'), 'no character was cut');
    assert.ok(raw.endsWith('data: [DONE]\n\n'));
  }
});

test('text held back when the stream ends without a finish reason goes out, redacted, in one event before [DONE]', () => {
  const { text, raw } = run(guard('redact=card;outputs'), event('card 4111 1111') + event(' 1111 1111') + 'data: [DONE]\n\n', 5);
  assert.is(text, 'card [REDACTED:card]');
  assert.ok(raw.endsWith('data: [DONE]\n\n'));
});

test('a blocking match ends the stream with the guardrail_blocked event and [DONE], and drops what follows', () => {
  const g = guard('block=secret;outputs');
  const first = g.push(Buffer.from(event('key AKIAIOSFODNN7EXAMPLE and more words after it, enough to pass the hold of the guard') + event('rest')));
  assert.match(first.toString(), /"code":"guardrail_blocked"/);
  assert.ok(first.toString().endsWith('data: [DONE]\n\n'));
  assert.not.ok(first.toString().includes('AKIA'));
  assert.is(g.push(Buffer.from(event('after') + 'data: [DONE]\n\n')).length, 0);
});

test('an unfinished line longer than the guard can hold ends the stream instead of passing unchecked', () => {
  const g = guard('redact=pan;outputs');
  const out = g.push(Buffer.alloc(1024 * 1024 + 1, 0x61)).toString();
  assert.match(out, /"code":"stream_interrupted"/);
  assert.not.ok(out.includes('aaaa'));
});

const toolEvent = (calls: unknown[] | null, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm',
    choices: [{ index: 0, delta: calls === null ? {} : { content: null, tool_calls: calls }, finish_reason: finish }] })}\n\n`;

/** Each tool call's arguments as the client joins them from its fragments. */
function toolArguments(raw: string): string[] {
  const args: string[] = [];
  for (const l of raw.split('\n')) {
    if (!l.startsWith('data: {')) continue;
    for (const c of JSON.parse(l.slice(6)).choices ?? []) {
      for (const t of c.delta?.tool_calls ?? []) args[t.index] = (args[t.index] ?? '') + (t.function?.arguments ?? '');
    }
  }
  return args;
}

test('streamed tool-call arguments are redacted whole across fragments, per call, and what is held goes out with the finish', () => {
  const events = toolEvent([{ index: 0, id: 'call_1', type: 'function', function: { name: 'kyc', arguments: '' } }])
    + toolEvent([{ index: 0, function: { arguments: '{"aadhaar":"2341 23' } }])
    + toolEvent([{ index: 0, function: { arguments: '41 2346","pan":"ABCP' } }])
    + toolEvent([{ index: 1, id: 'call_2', type: 'function', function: { name: 'mail', arguments: '{"to":"+91 98765 ' } }])
    + toolEvent([{ index: 0, function: { arguments: 'E1234F"}' } }, { index: 1, function: { arguments: '43210"}' } }])
    + toolEvent(null, 'tool_calls') + 'data: [DONE]\n\n';
  for (const size of [1, 5, 64, 10_000]) {
    const { raw } = run(guard('redact=aadhaar,pan,mobile;outputs'), events, size);
    assert.equal(toolArguments(raw), ['{"aadhaar":"[REDACTED:aadhaar]","pan":"[REDACTED:pan]"}', '{"to":"[REDACTED:mobile]"}'], `pieces of ${size}`);
    for (const l of raw.split('\n').filter((x) => x.startsWith('data: {'))) JSON.parse(l.slice(6));
    assert.ok(raw.endsWith('data: [DONE]\n\n'));
  }
});

test('tool-call arguments held when a stream ends without a finish reason go out, redacted, before [DONE]; a blocking match in them ends the stream', () => {
  const { raw } = run(guard('redact=card;outputs'), toolEvent([{ index: 0, id: 'c1', type: 'function', function: { name: 'pay', arguments: '{"card":"4111 1111' } }])
    + toolEvent([{ index: 0, function: { arguments: ' 1111 1111"}' } }]) + 'data: [DONE]\n\n', 7);
  assert.equal(toolArguments(raw), ['{"card":"[REDACTED:card]"}']);
  const blocked = run(guard('block=card;outputs'), toolEvent([{ index: 0, id: 'c1', type: 'function', function: { name: 'pay', arguments: '{"card":"4111 1111 1111 1111"}' } }])
    + toolEvent(null, 'tool_calls') + 'data: [DONE]\n\n', 10_000).raw;
  assert.match(blocked, /"code":"guardrail_blocked"/);
  assert.not.ok(blocked.includes('4111'));
});

test.run();
