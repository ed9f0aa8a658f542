// Sign-in calls to identity providers honour the same forward proxy as provider traffic, so a
// gateway whose only way out is a proxy can still complete an OAuth sign-in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IdpHttp } from '../../../src/control/oauth/idp-http.js';
import { isGatewayError } from '../../../src/errors/gateway-error.js';
import { createLogger } from '../../../src/lib/logger.js';
import { startHttpProxy } from '../../support/http-proxy.js';
import { startSocksProxy } from '../../support/socks-proxy.js';

const log = createLogger('error', () => {});

/** An identity provider that answers every call with its path and the host it was asked for. */
async function echoIdp(): Promise<{ idp: Server; port: number }> {
  const idp = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, host: req.headers.host }));
  });
  await new Promise<void>((r) => idp.listen(0, '127.0.0.1', () => r()));
  return { idp, port: (idp.address() as AddressInfo).port };
}

test('identity provider calls go through the proxy; loopback ones directly', async () => {
  const { idp, port } = await echoIdp();
  const proxy = await startHttpProxy({ user: 'gw', password: 's3cret', hosts: { 'idp.test': '127.0.0.1' } });
  const http = new IdpHttp(log, { httpProxy: `http://gw:s3cret@127.0.0.1:${proxy.port}` }, 3_000);
  try {
    const a = await http.get(`http://idp.test:${port}/.well-known/openid-configuration`, 'discovery');
    assert.is(a.status, 200);
    assert.equal(a.json, { path: '/.well-known/openid-configuration', host: `idp.test:${port}` });
    assert.is(proxy.log.length, 1);
    assert.ok(proxy.log[0].target.includes(`idp.test:${port}`), proxy.log[0].target);
    assert.is(proxy.log[0].authorization, `Basic ${Buffer.from('gw:s3cret').toString('base64')}`);
    const b = await http.postForm(`http://127.0.0.1:${port}/token`, { code: 'x' }, 'token');
    assert.is(b.status, 200);
    assert.is(proxy.log.length, 1, 'loopback went direct');
  } finally {
    await proxy.close();
    await new Promise<void>((r) => idp.close(() => r()));
  }
});

test('identity provider calls go through a SOCKS5 proxy too, with its credentials', async () => {
  const { idp, port } = await echoIdp();
  const proxy = await startSocksProxy({ user: 'gw', password: 's3cret', hosts: { 'idp.test': '127.0.0.1' } });
  const http = new IdpHttp(log, { allProxy: `socks5h://gw:s3cret@127.0.0.1:${proxy.port}` }, 3_000);
  try {
    const a = await http.get(`http://idp.test:${port}/keys`, 'keys');
    assert.is(a.status, 200);
    assert.equal(a.json, { path: '/keys', host: `idp.test:${port}` });
    assert.equal(proxy.log, [{ addressType: 'domain', host: 'idp.test', port, user: 'gw' }]);
  } finally {
    await proxy.close();
    await new Promise<void>((r) => idp.close(() => r()));
  }
});

test('an unreachable proxy makes sign-in 503 unavailable, not a hang', async () => {
  const dead = createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
  const deadPort = (dead.address() as AddressInfo).port;
  await new Promise<void>((r) => dead.close(() => r()));
  const lines: string[] = [];
  const http = new IdpHttp(createLogger('warn', (l) => lines.push(l)), { httpsProxy: `http://127.0.0.1:${deadPort}` }, 3_000);
  const e = await http.get('https://accounts.example/.well-known/openid-configuration', 'discovery').then(() => null, (err: unknown) => err);
  assert.ok(isGatewayError(e), String(e));
  assert.is((e as { status: number }).status, 503);
  assert.ok(lines.some((l) => l.includes('ECONNREFUSED') && l.includes(String(deadPort))), `the refused proxy is logged: ${lines.join('\n')}`);
});

test.run();
