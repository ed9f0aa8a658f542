import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockedReason, embeddedIPv4, isInternalAddress, publicOnlyLookup } from '../../src/lib/address-guard.js';
import { ProxyDispatchers } from '../../src/control/proxy-dispatchers.js';

test('this host, private, link-local, CGNAT, multicast and unspecified addresses are internal; public ones are not', () => {
  for (const a of ['127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
    assert.ok(isInternalAddress(a), a);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', 'not-an-ip']) assert.not.ok(isInternalAddress(a), a);
});

test('IPv6 forms that carry an IPv4 address are judged by that address (mapped, compatible, SIIT, NAT64, 6to4, Teredo)', () => {
  // Teredo: server 127.0.0.1 in bits 32-63; client 169.254.169.254 obfuscated (XOR 0xffffffff) in the last 32 bits.
  const internal = ['::ffff:127.0.0.1', '::ffff:7f00:1', '::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '::ffff:0:10.0.0.1',
    '64:ff9b::a9fe:a9fe', '64:ff9b::169.254.169.254', '64:ff9b::7f00:1', '64:ff9b::10.1.2.3',
    '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:a9fe:a9:fe00::', '64:ff9b:1::808:808',
    '2002:a9fe:a9fe::1', '2002:7f00:1::', '2002:c0a8:101:1::1', '2002:a00:1::',
    '2001:0:7f00:1::f7f7:f7f7', '2001:0:808:808::5601:5601', '2001::808:808:0:0:80ff:fffe'];
  for (const a of internal) assert.ok(isInternalAddress(a), a);
  const outside = ['::808:808', '::ffff:8.8.8.8', '64:ff9b::808:808', '64:ff9b::1.1.1.1', '2002:808:808::1',
    '2001:0:808:808::f7f7:f7f7', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:db9::1', '2606:4700::1111'];
  for (const a of outside) assert.not.ok(isInternalAddress(a), a);
  assert.equal(embeddedIPv4('64:ff9b::a9fe:a9fe'), ['169.254.169.254']);
  assert.equal(embeddedIPv4('::7f00:1'), ['127.0.0.1']);
  assert.equal(embeddedIPv4('2002:c0a8:101::1'), ['192.168.1.1']);
  assert.equal(embeddedIPv4('2001:0:4136:e378:8000:63bf:3fff:fdd2'), ['65.54.227.120', '192.0.2.45'], 'the RFC 4380 example');
  assert.equal(embeddedIPv4('64:ff9b:1:a9fe:a9:fe00::')[0], '169.254.169.254', 'the /48 position');
  assert.equal(embeddedIPv4('2606:4700::1111'), []);
  assert.equal(embeddedIPv4('8.8.8.8'), []);
});

test('URLs: scheme, credentials and resolved addresses are checked; the operator may allow internal ones', async () => {
  assert.match((await blockedReason(new URL('ftp://8.8.8.8/'), false))!, /http and https/);
  assert.match((await blockedReason(new URL('http://u:p@8.8.8.8/'), false))!, /credentials/);
  assert.match((await blockedReason(new URL('http://127.0.0.1:8000/v1'), false))!, /internal address/);
  assert.match((await blockedReason(new URL('http://localhost:8000/v1'), false))!, /internal address/);
  assert.match((await blockedReason(new URL('http://[::1]/v1'), false))!, /internal address/);
  assert.match((await blockedReason(new URL('http://[64:ff9b::a9fe:a9fe]/'), false))!, /carries 169\.254\.169\.254\), an internal address/);
  assert.match((await blockedReason(new URL('http://[::127.0.0.1]/'), false))!, /carries 127\.0\.0\.1\), an internal address/);
  assert.match((await blockedReason(new URL('http://[2001:0:808:808::5601:5601]/'), false))!, /carries 169\.254\.169\.254/);
  assert.is(await blockedReason(new URL('http://[64:ff9b::808:808]/v1'), false), null);
  assert.is(await blockedReason(new URL('http://8.8.8.8/v1'), false), null);
  assert.is(await blockedReason(new URL('http://127.0.0.1:8000/v1'), true), null);
});

const lookupOf = (host: string, all: boolean) => new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
  publicOnlyLookup(host, { all }, (err, address, family) => resolve({ err, address, family }));
});

test('the connect-time lookup refuses names that resolve inward, in both of its calling forms', async () => {
  for (const all of [true, false]) {
    const r = await lookupOf('localhost', all);
    assert.is(r.err?.code, 'EADDRBLOCKED');
    assert.match(r.err!.message, /localhost now resolves to .*an internal address/);
  }
  // A public address resolves to itself without the network.
  assert.equal((await lookupOf('8.8.8.8', true)).address, [{ address: '8.8.8.8', family: 4 }]);
  const one = await lookupOf('8.8.8.8', false);
  assert.equal([one.err, one.address, one.family], [null, '8.8.8.8', 4]);
  assert.is((await lookupOf('no-such-host.invalid', false)).err?.code, 'ENOTFOUND');
});

test('control-plane calls to user URLs connect through the guard; the operator\'s own calls do not', async () => {
  const server = createServer((_req, res) => res.end('reached'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://localhost:${(server.address() as AddressInfo).port}/`;
  const d = new ProxyDispatchers({});
  try {
    assert.is(await (await fetch(url, { dispatcher: d.for(url) } as RequestInit)).text(), 'reached');
    const e = await fetch(url, { dispatcher: d.for(url, true) } as RequestInit).then(() => null, (err: Error) => err);
    assert.ok(e, 'refused');
    assert.is((e!.cause as NodeJS.ErrnoException).code, 'EADDRBLOCKED');
  } finally {
    server.close();
  }
});

test.run();
