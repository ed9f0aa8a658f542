import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ipv6Bytes } from '../../src/upstream/socks5.js';

test('IPv6 addresses become their 16 bytes: compressed anywhere, or with an IPv4 tail', () => {
  const hex = (ip: string) => ipv6Bytes(ip).toString('hex');
  assert.is(hex('::1'), '00000000000000000000000000000001');
  assert.is(hex('1::'), '00010000000000000000000000000000');
  assert.is(hex('2001:db8::8a2e:370:7334'), '20010db80000000000008a2e03707334');
  assert.is(hex('fe80:0:0:0:202:b3ff:fe1e:8329'), 'fe800000000000000202b3fffe1e8329');
  assert.is(hex('::ffff:192.0.2.1'), '00000000000000000000ffffc0000201');
  assert.is(hex('64:ff9b::203.0.113.5'), '0064ff9b0000000000000000cb007105');
});

test.run();
