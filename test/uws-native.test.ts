import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway } from './support/gateway-process.js';
import { uwsIsNative } from '../src/http/uws-build.js';

test('uWebSockets.js loads its native build here, not the JavaScript fallback', () => {
  assert.is(process.env.UWS_USE_FALLBACK ?? '', '');
  assert.ok(uwsIsNative());
});

test('the running gateway reports the native build in its listening line', async () => {
  const gw = await startGateway();
  try {
    const line = gw.lines.find((l) => l.includes('"msg":"listening"'))!;
    assert.is(JSON.parse(line).uws, 'native');
  } finally {
    await gw.cleanup();
  }
});

test.run();
