// The control plane's outbound agents through a SOCKS5 proxy resolve names as the data plane's
// connector does (test/upstream/origin-pool.test.ts): socks5h:// lets the proxy resolve the host,
// socks5:// resolves it in the gateway and sends the address.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { fetch } from 'undici';
import { ProxyDispatchers } from '../../src/control/proxy-dispatchers.js';
import { startSocksProxy } from '../support/socks-proxy.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

const close = (server: Server): Promise<void> => new Promise((r) => {
  server.closeAllConnections();
  server.close(() => r());
});

/** Answers with the host it was asked for. */
const echoHost = () => createServer((req, res) => res.end(String(req.headers.host)));

test('socks5h:// sends the name for the proxy to resolve, with the credentials', async () => {
  const origin = echoHost();
  const port = await listen(origin);
  const proxy = await startSocksProxy({ user: 'gw', password: 'pä55', hosts: { 'idp.test': '127.0.0.1' } });
  const agents = new ProxyDispatchers({ allProxy: `socks5h://gw:p%C3%A455@127.0.0.1:${proxy.port}` });
  try {
    const url = `http://idp.test:${port}/x`;
    const r = await fetch(url, { dispatcher: agents.for(url) });
    assert.is(await r.text(), `idp.test:${port}`);
    assert.equal(proxy.log, [{ addressType: 'domain', host: 'idp.test', port, user: 'gw' }]);
  } finally {
    await proxy.close();
    await close(origin);
  }
});

test('socks5:// resolves the name in the gateway, socks5h:// leaves it to the proxy, as the data plane does', async () => {
  const proxy = await startSocksProxy();
  // A name that resolves nowhere: where the lookup happens shows in whether the proxy was asked.
  const url = 'http://nowhere.test:4/';
  try {
    const local = new ProxyDispatchers({ httpProxy: `socks5://127.0.0.1:${proxy.port}` });
    assert.ok(await fetch(url, { dispatcher: local.for(url) }).then(() => null, (e: Error) => e));
    assert.equal(proxy.log, [], 'socks5: the gateway looked the name up, found nothing, and never asked the proxy');
    const remote = new ProxyDispatchers({ httpProxy: `socks5h://127.0.0.1:${proxy.port}` });
    assert.ok(await fetch(url, { dispatcher: remote.for(url) }).then(() => null, (e: Error) => e));
    assert.equal(proxy.log, [{ addressType: 'domain', host: 'nowhere.test', port: 4, user: null }], 'socks5h: the proxy was given the name');
  } finally {
    await proxy.close();
  }
});

test('an https origin through SOCKS5: TLS runs inside the tunnel and its certificate is checked', async () => {
  const origin = createHttpsServer({ cert: readFileSync(FIXTURES + 'localhost-cert.pem'), key: readFileSync(FIXTURES + 'localhost-key.pem') },
    (_req, res) => res.end('secret'));
  const port = await listen(origin);
  const proxy = await startSocksProxy({ hosts: { 'idp.test': '127.0.0.1' } });
  const agents = new ProxyDispatchers({ httpsProxy: `socks5h://127.0.0.1:${proxy.port}` });
  try {
    const url = `https://idp.test:${port}/`;
    const e = await fetch(url, { dispatcher: agents.for(url) }).then(() => null, (err: Error & { cause?: Error }) => err);
    // The test certificate is for localhost, signed by nobody this process trusts.
    assert.match(String(e?.cause?.message ?? e?.message), /certificate/i);
    assert.equal(proxy.log, [{ addressType: 'domain', host: 'idp.test', port, user: null }]);
  } finally {
    await proxy.close();
    await close(origin as unknown as Server);
  }
});

test('a proxy that refuses the credentials fails the call, naming the proxy', async () => {
  const proxy = await startSocksProxy({ user: 'gw', password: 'right' });
  const agents = new ProxyDispatchers({ allProxy: `socks5h://gw:wrong@127.0.0.1:${proxy.port}` });
  try {
    const url = 'http://idp.test:4/';
    const e = await fetch(url, { dispatcher: agents.for(url) }).then(() => null, (err: Error & { cause?: Error }) => err);
    assert.match(String(e?.cause?.message), new RegExp(`SOCKS5 proxy 127\\.0\\.0\\.1:${proxy.port}: .*[Aa]uthentication`));
  } finally {
    await proxy.close();
  }
});

test.run();
