import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blockedReason, isInternalAddress } from '../../src/lib/address-guard.js';

test('this host, private, link-local, CGNAT, multicast and unspecified addresses are internal; public ones are not', () => {
  for (const a of ['127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
    assert.ok(isInternalAddress(a), a);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', 'not-an-ip']) assert.not.ok(isInternalAddress(a), a);
});

test('URLs: scheme, credentials and resolved addresses are checked; the operator may allow internal ones', async () => {
  assert.match((await blockedReason(new URL('ftp://8.8.8.8/'), false))!, /http and https/);
  assert.match((await blockedReason(new URL('http://u:p@8.8.8.8/'), false))!, /credentials/);
  assert.match((await blockedReason(new URL('http://127.0.0.1:8000/v1'), false))!, /internal address/);
  assert.match((await blockedReason(new URL('http://localhost:8000/v1'), false))!, /internal address/);
  assert.match((await blockedReason(new URL('http://[::1]/v1'), false))!, /internal address/);
  assert.is(await blockedReason(new URL('http://8.8.8.8/v1'), false), null);
  assert.is(await blockedReason(new URL('http://127.0.0.1:8000/v1'), true), null);
});

test.run();
