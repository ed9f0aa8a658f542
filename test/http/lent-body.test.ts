import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { route, type RouteSpec } from '../../src/domain/route-spec.js';
import type { KeyRecord } from '../../src/domain/key-record.js';
import { errors } from '../../src/errors/catalog.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { freeSlabs, leaseOf } from '../../src/lib/request-slabs.js';

// The inference routes read a large body into a lent slab (RawRoute.lendsBody): the router gives
// it back once the handler's promise has settled, however it settles, and not before; a route
// that does not lend, and a small body, get ordinary buffers.

const KEY: KeyRecord = {
  id: 'key_a', orgId: 'org_a', workspaceId: 'ws_a', name: 'a', prefix: 'gw-xxxx', tier: 'standard', scope: 'full',
  rpmLimit: null, dailyLimit: null, monthlyBudgetMicros: null, expiresAt: null, revokedAt: null,
};

interface Seen {
  body: Buffer;
  lent: boolean;
  /** Settles the handler's promise: resolved, or rejected with a GatewayError. */
  finish(outcome: 'resolve' | 'reject'): void;
}

const seen: Seen[] = [];
let arrived: (() => void) | null = null;

const handler = (ctx: { body: Buffer }, reply: { send(status: number, type: string, body: string): void }): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const body = ctx.body;
    seen.push({
      body, lent: leaseOf(body) !== null,
      finish: (outcome) => {
        if (outcome === 'resolve') {
          reply.send(200, 'text/plain', String(body.length));
          resolve(body.length);
        } else reject(errors.badRequest('refused by the test'));
      },
    });
    arrived?.();
  });

const routes: RouteSpec[] = [
  route({ kind: 'raw', method: 'post', path: '/lends', auth: 'api_key', lendsBody: true, summary: 'lends', handle: handler }),
  route({ kind: 'raw', method: 'post', path: '/keeps', auth: 'api_key', summary: 'keeps', handle: handler }),
  route({
    kind: 'raw', method: 'post', path: '/throws', auth: 'api_key', lendsBody: true, summary: 'throws',
    handle: () => {
      throw errors.badRequest('thrown before any promise');
    },
  }),
];

let server: RunningServer;

test.before(async () => {
  server = await startServer(routes, {
    host: '127.0.0.1', port: 0, bodyLimitBytes: 16 * 1024 * 1024, log: createLogger('error'),
    keys: { authenticate: (a) => { if (a !== 'Bearer gw-test') throw errors.invalidApiKey(); return KEY; } },
  });
});
test.after(() => server.stopListening());

function post(path: string, size: number, fill: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', headers: { authorization: 'Bearer gw-test' }, body: fill.repeat(size) });
}

/** The next request's handler, once it runs. */
async function next(): Promise<Seen> {
  const n = seen.length;
  while (seen.length === n) await new Promise<void>((r) => { arrived = r; });
  return seen[n];
}

test('a large body is lent to its route and comes back only once the handler has settled', async () => {
  const free = freeSlabs();
  const answer = post('/lends', 300_000, 'a');
  const a = await next();
  assert.ok(a.lent, 'read into a slab');
  assert.is(a.body.length, 300_000);
  assert.ok(a.body.every((b) => b === 0x61), 'the bytes the client sent');
  // Held: a second body meanwhile gets other memory.
  const second = post('/lends', 300_000, 'b');
  const b = await next();
  assert.ok(b.lent);
  assert.is.not(b.body.buffer, a.body.buffer, 'a held slab is never lent twice');
  assert.ok(a.body.every((x) => x === 0x61), 'the first body is untouched');
  assert.is(freeSlabs(), Math.max(0, free - 2));
  a.finish('resolve');
  assert.is(await (await answer).text(), '300000');
  assert.is(freeSlabs(), Math.max(0, free - 2) + 1, 'given back once its handler resolved');
  // Rejected: given back too, and the error still answered in the route's shape.
  b.finish('reject');
  const refused = await second;
  assert.is(refused.status, 400);
  assert.is(((await refused.json()) as { error: { message: string } }).error.message, 'refused by the test');
  assert.is(freeSlabs(), Math.max(0, free - 2) + 2);
  // The next body of that size is read into memory given back.
  const third = post('/lends', 250_000, 'c');
  const c = await next();
  assert.ok(c.body.buffer === a.body.buffer || c.body.buffer === b.body.buffer, 'a slab given back is lent again');
  assert.ok(c.body.every((x) => x === 0x63));
  c.finish('resolve');
  assert.is(await (await third).text(), '250000');
});

test('a route that does not lend, and a small body, get buffers of their own', async () => {
  const answer = post('/keeps', 300_000, 'k');
  const k = await next();
  assert.not.ok(k.lent);
  k.finish('resolve');
  assert.is(await (await answer).text(), '300000');
  const small = post('/lends', 1_000, 's');
  const s = await next();
  assert.not.ok(s.lent, 'under SLAB_MIN');
  s.finish('resolve');
  assert.is(await (await small).text(), '1000');
});

test('a handler that throws at once gives its slab back', async () => {
  const free = freeSlabs();
  const r = await post('/throws', 300_000, 't');
  assert.is(r.status, 400);
  assert.is(((await r.json()) as { error: { message: string } }).error.message, 'thrown before any promise');
  assert.is(freeSlabs(), Math.max(free, 1), 'the slab came back');
  // And the slab is whole for the next request.
  const answer = post('/lends', 300_000, 'n');
  const n = await next();
  assert.ok(n.lent && n.body.every((x) => x === 0x6e));
  n.finish('resolve');
  assert.is(await (await answer).text(), '300000');
});

test.run();
