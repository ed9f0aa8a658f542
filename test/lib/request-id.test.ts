import { test } from 'uvu';
import * as assert from 'uvu/assert';

// Two gateway processes started in the same millisecond must not hand out the same ids: the
// ledger on a shared PostgreSQL keys a request's rows by them. Each import below is a separate
// module instance, as each process is, with the clock held still.
test('processes started in the same millisecond hand out different request ids', async () => {
  const now = Date.now;
  Date.now = () => 1_790_000_000_000;
  try {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const m = (await import(`../../src/lib/request-id.js?instance=${i}`)) as typeof import('../../src/lib/request-id.js');
      const id = m.nextRequestId();
      assert.match(id, /^[0-9a-z]+-0$/);
      ids.add(id);
    }
    assert.is(ids.size, 20);
  } finally {
    Date.now = now;
  }
});

test('one process never repeats an id', async () => {
  const { nextRequestId } = await import('../../src/lib/request-id.js');
  const ids = new Set<string>();
  for (let i = 0; i < 10_000; i++) ids.add(nextRequestId());
  assert.is(ids.size, 10_000);
});

test.run();
