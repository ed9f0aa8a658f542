import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ChangeBus, type Change } from '../../src/cluster/change-bus.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait.js';

let server: RedisServer;
let buses: ChangeBus[] = [];
test.before(async () => {
  server = await startRedis();
});
test.after(async () => {
  await server.stop();
});
test.after.each(() => {
  for (const b of buses) b.close();
  buses = [];
});

/** n instances' buses, subscribed, each recording what it hears (with the arrival time). */
async function instances(n: number): Promise<{ bus: ChangeBus; heard: { c: Change; at: number }[] }[]> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const bus = ChangeBus.connect(server.url);
    buses.push(bus);
    const heard: { c: Change; at: number }[] = [];
    bus.subscribe((c) => heard.push({ c, at: performance.now() }));
    await bus.ready();
    out.push({ bus, heard });
  }
  return out;
}

const ALL: Change[] = [
  { kind: 'key', id: 'key_1', change: 'revoked' },
  { kind: 'key', id: 'key_2', change: 'changed' },
  { kind: 'workspace', id: 'ws_1' },
  { kind: 'money', orgId: 'org_1', eventId: 42, amountMicros: 5_000_000 },
  { kind: 'chain', orgId: 'org_1', model: 'llama-3.3-70b-instruct' },
  { kind: 'byok', orgId: 'org_1', provider: 'openai' },
  { kind: 'endpoint', orgId: 'org_1', name: 'my-vllm' },
];

test('every kind of change published by one instance reaches every other within milliseconds, in order; the publisher ignores its own', async () => {
  const [a, b, c] = await instances(3);
  const sent = performance.now();
  for (const ch of ALL) await a.bus.publish(ch);
  await waitFor(() => b.heard.length === ALL.length && c.heard.length === ALL.length, 2_000, 'delivery');
  assert.equal(b.heard.map((h) => h.c), ALL);
  assert.equal(c.heard.map((h) => h.c), ALL);
  assert.is(a.heard.length, 0);
  const latest = Math.max(...b.heard.map((h) => h.at), ...c.heard.map((h) => h.at)) - sent;
  assert.ok(latest < 100, `all delivered ${latest.toFixed(1)} ms after the first publish`);
  // And back the other way.
  await c.bus.publish({ kind: 'workspace', id: 'ws_2' });
  await waitFor(() => a.heard.length === 1 && b.heard.length === ALL.length + 1, 2_000, 'delivery to a');
  assert.is(c.heard.length, ALL.length);
});

test('a handler that throws does not stop the others, and an unsubscribed handler hears nothing more', async () => {
  const [a, b] = await instances(2);
  const seen: string[] = [];
  b.bus.subscribe(() => { throw new Error('boom'); });
  const stop = b.bus.subscribe((ch) => seen.push(ch.kind));
  await a.bus.publish({ kind: 'workspace', id: 'w' });
  await waitFor(() => seen.length === 1, 2_000, 'delivery');
  stop();
  await a.bus.publish({ kind: 'workspace', id: 'w2' });
  await waitFor(() => b.heard.length === 2, 2_000, 'the second delivery');
  assert.equal(seen, ['workspace']);
});

test('after Redis restarts the subscribers are subscribed again; publishing while it is down fails at once', async () => {
  const [a, b, c] = await instances(3);
  await server.kill();
  const started = Date.now();
  let failed = false;
  await a.bus.publish({ kind: 'key', id: 'k', change: 'revoked' }).catch(() => { failed = true; });
  assert.ok(failed);
  assert.ok(Date.now() - started < 200);
  await server.restart();
  // Nothing is stored by pub/sub: publish until the resubscribed instances hear one.
  let n = 0;
  await waitFor(async () => {
    await a.bus.publish({ kind: 'key', id: `k${++n}`, change: 'revoked' }).catch(() => {});
    return b.heard.length > 0 && c.heard.length > 0;
  }, 10_000, 'the subscribers to be back');
  // From then on, every message arrives.
  await a.bus.publish({ kind: 'endpoint', orgId: 'o', name: 'e' });
  const got = (x: typeof b) => x.heard.some((h) => h.c.kind === 'endpoint');
  await waitFor(() => got(b) && got(c), 2_000, 'delivery after restart');
  assert.is(a.heard.length, 0);
});

test.run();
