// A translating provider's whole answer, read at once when it has all arrived (arrived()) or
// awaited (readAll()): the same translated bytes and token counts either way, an error answer
// as it came, and nothing at once from a stream.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TranslatedResponse } from '../../src/dataplane/translated-response.js';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { BufferedResponse } from '../../src/providers/types.js';
import { scanUsage } from '../../src/lib/usage-scan.js';
import { fixtureBytes } from '../providers/anthropic-fixtures.js';

const answer = fixtureBytes('answer-cached.message.json');
const translated = (status: number, type: string, body: Buffer) =>
  new TranslatedResponse(new BufferedResponse(status, type, [body]), anthropicAdapter, 'chat', 'claude-upstream', '', null, 'asked-for');
/** Chat answers carry the wall clock's second: compared without it. */
const steady = (b: Buffer) => JSON.parse(b.toString('utf8'), (k, v) => (k === 'created' ? 0 : v));

test('an answer that has arrived is translated at once, as readAll translates it, with its token counts', async () => {
  const now = translated(200, 'application/json', answer);
  const later = translated(200, 'application/json', answer);
  const at = now.arrived()!;
  const awaited = await later.readAll();
  assert.equal(steady(at), steady(awaited));
  assert.is(steady(at).model, 'asked-for');
  assert.equal(now.usage, scanUsage(at));
  assert.equal(later.usage, scanUsage(awaited));
  assert.is(now.usage!.cachedTokens, 100_000);
});

test('an error answer is passed on as it came, with no counts; a stream gives nothing at once', () => {
  const error = fixtureBytes('error-429.json');
  const refused = translated(429, 'application/json', error);
  assert.is(refused.arrived(), error);
  assert.is(refused.usage, undefined);
  assert.is(translated(200, 'text/event-stream', fixtureBytes('stream-text.sse')).arrived(), null);
});

test.run();
