import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLoopback } from '../../src/metrics/metrics-route.js';

test('loopback addresses are told from others in every form uWS writes them', () => {
  for (const ip of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '0000:0000:0000:0000:0000:0000:0000:0001',
    '0000:0000:0000:0000:0000:ffff:7f00:0001']) assert.ok(isLoopback(ip), ip);
  for (const ip of ['192.0.2.2', '10.0.0.1', '::2', '128.0.0.1', '0000:0000:0000:0000:0000:ffff:c000:0202', 'fd00::2', '']) {
    assert.not.ok(isLoopback(ip), ip);
  }
});

test.run();
