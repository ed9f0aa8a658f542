import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bypassesProxy, describeProxies, parseProxyUrl, proxyFor, proxyOrigin } from '../../src/lib/proxy-settings.js';

test('a proxy URL gives host, port, TLS and Basic credentials; the scheme may be left out', () => {
  assert.equal(parseProxyUrl('http://user:p%40ss@proxy.corp:3128'), {
    host: 'proxy.corp', port: 3128, tls: false, authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`, socks: null,
  });
  assert.equal(parseProxyUrl('proxy.corp:8080'), { host: 'proxy.corp', port: 8080, tls: false, authorization: null, socks: null });
  assert.equal(parseProxyUrl('http://[::1]').port, 80);
  assert.is(parseProxyUrl('http://[::1]:3128').host, '::1');
  assert.equal(parseProxyUrl('https://secure.proxy'), { host: 'secure.proxy', port: 443, tls: true, authorization: null, socks: null });
  assert.throws(() => parseProxyUrl('socks4://proxy:1080'), /http:\/\/, https:\/\/, socks5:\/\/ or socks5h:\/\//);
});

test('SOCKS5 URLs: socks5 resolves names in the gateway, socks5h in the proxy; port 1080 by default; RFC 1929 credentials', () => {
  assert.equal(parseProxyUrl('socks5://127.0.0.1'), {
    host: '127.0.0.1', port: 1080, tls: false, authorization: null, socks: { remoteDns: false, username: null, password: null },
  });
  assert.equal(parseProxyUrl('socks5h://me:p%40ss@[::1]:9050'), {
    host: '::1', port: 9050, tls: false, authorization: null, socks: { remoteDns: true, username: 'me', password: 'p@ss' },
  });
  assert.is(proxyOrigin(parseProxyUrl('socks5h://me:secret@tunnel:1080')), 'socks5h://tunnel:1080', 'no credentials shown');
  assert.throws(() => parseProxyUrl('socks5://'), /names a host|not a proxy URL/);
});

test('ALL_PROXY applies to a scheme without its own proxy; an empty own setting still turns it off', () => {
  const s = { allProxy: 'socks5h://tunnel:1080', httpProxy: 'http://plain:1' };
  assert.is(proxyFor(new URL('https://api.openai.com/v1'), s)?.host, 'tunnel');
  assert.is(proxyFor(new URL('http://vllm.lan/v1'), s)?.host, 'plain');
  assert.is(proxyFor(new URL('https://api.openai.com/v1'), { ...s, httpsProxy: '' }), null);
  assert.equal(describeProxies(s), { https: 'socks5h://tunnel:1080', http: 'http://plain:1' });
});

test('the proxy is chosen by the origin scheme', () => {
  const s = { httpProxy: 'http://plain:1', httpsProxy: 'http://secure:2' };
  assert.is(proxyFor(new URL('https://api.openai.com/v1'), s)?.host, 'secure');
  assert.is(proxyFor(new URL('http://vllm.lan:8000/v1'), s)?.host, 'plain');
  assert.is(proxyFor(new URL('https://api.openai.com/v1'), { httpProxy: 'http://plain:1' }), null);
  assert.is(proxyFor(new URL('https://api.openai.com/v1'), { httpsProxy: '' }), null);
});

test('loopback providers are always reached directly', () => {
  const s = { httpProxy: 'http://p:3128', httpsProxy: 'http://p:3128' };
  for (const url of ['http://localhost:8000/v1', 'http://127.0.0.1:11434/v1', 'http://127.1.2.3/v1', 'http://[::1]:8000/v1', 'https://vllm.localhost/v1']) {
    assert.is(proxyFor(new URL(url), s), null, url);
  }
  assert.is(proxyFor(new URL('http://128.0.0.1/v1'), s)?.host, 'p');
});

test('NO_PROXY: exact hosts, domain suffixes, ports, IPv6, CIDR ranges and *', () => {
  const no = 'localhost, .internal ,*.corp.example,api.groq.com:8443 10.0.0.7 [::1]:8000';
  assert.ok(bypassesProxy('localhost', 80, no));
  assert.ok(bypassesProxy('vllm.internal', 8000, no));
  assert.ok(bypassesProxy('internal', 8000, no), '.internal matches the bare domain too');
  assert.ok(bypassesProxy('a.b.corp.example', 443, no));
  assert.ok(bypassesProxy('api.groq.com', 8443, no));
  assert.not.ok(bypassesProxy('api.groq.com', 443, no), 'a port in the entry restricts it');
  assert.ok(bypassesProxy('10.0.0.7', 443, no));
  assert.not.ok(bypassesProxy('110.0.0.7', 443, no));
  assert.ok(bypassesProxy('::1', 8000, no));
  assert.not.ok(bypassesProxy('::1', 9000, no));
  assert.not.ok(bypassesProxy('notlocalhost', 80, no), 'a suffix matches only at a dot');
  assert.ok(bypassesProxy('anything', 1, 'x,*'));
  const ranges = '10.0.0.0/8, 192.168.1.0/24 fd00::/8 bogus/99';
  assert.ok(bypassesProxy('10.20.30.40', 8000, ranges));
  assert.ok(bypassesProxy('192.168.1.7', 80, ranges));
  assert.not.ok(bypassesProxy('192.168.2.7', 80, ranges));
  assert.ok(bypassesProxy('fd12::1', 80, ranges));
  assert.not.ok(bypassesProxy('fe80::1', 80, ranges));
  assert.not.ok(bypassesProxy('ten.example', 80, ranges), 'names are not resolved to match a range');
  const s = { httpsProxy: 'http://p:3128', noProxy: 'openai.com' };
  assert.is(proxyFor(new URL('https://api.openai.com/v1'), s), null);
  assert.is(proxyFor(new URL('https://api.together.xyz/v1'), s)?.host, 'p');
});

test.run();
