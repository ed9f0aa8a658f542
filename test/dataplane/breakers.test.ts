import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Breakers } from '../../src/dataplane/breakers.js';

const cfg = { resetTimeoutMs: 60_000, errorThresholdPercentage: 50, volumeThreshold: 2, rollingWindowMs: 10_000 };
const fail = () => Promise.reject(new Error('upstream down'));
const ok = () => Promise.resolve('ok');

async function open(b: Breakers, route: { id: string; direct: boolean }): Promise<void> {
  for (let i = 0; i < 3; i++) await b.fire(route, fail).catch(() => undefined);
}

test('a catalog route\'s breaker outlives any number of direct routes; direct ones are bounded, oldest first', async () => {
  const b = new Breakers(cfg);
  const catalog = { id: 'groq:llama', direct: false };
  const firstDirect = { id: 'openai:gpt-x-0', direct: true };
  await open(b, catalog);
  await open(b, firstDirect);
  assert.ok(b.isOpen(catalog.id) && b.isOpen(firstDirect.id));
  // Callers may name routes without end: 1,000 more direct routes push the first one out.
  for (let i = 1; i <= 1_000; i++) await b.fire({ id: `openai:gpt-x-${i}`, direct: true }, ok);
  assert.is(b.state(firstDirect.id), 'closed');
  assert.ok(b.isOpen(catalog.id), 'the catalog route is still open');
  assert.is(b.state('openai:gpt-x-1000'), 'closed');
  b.shutdown();
});

test.run();
