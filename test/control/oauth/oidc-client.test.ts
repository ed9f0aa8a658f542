// The OpenID client (openid-client underneath) against a scripted provider on 127.0.0.1 whose
// id_tokens the tests write themselves: every check the sign-in relies on, with the message a
// person signing in gets.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IdpHttp } from '../../../src/control/oauth/idp-http.js';
import { OidcClient, type OidcSettings } from '../../../src/control/oauth/oidc-client.js';
import type { FinishRequest } from '../../../src/control/oauth/sign-in-provider.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { createLogger } from '../../../src/lib/logger.js';
import { startHttpProxy } from '../../support/http-proxy.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = (k: KeyObject, extra: Record<string, unknown>) => ({ ...(k.export({ format: 'jwk' }) as JsonWebKey), ...extra });
const KEYS = [jwk(rsa.publicKey, { kid: 'r1', use: 'sig' }), jwk(ec.publicKey, { kid: 'e1' })];

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);

function jwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject | null): string {
  const input = `${b64(header)}.${b64(payload)}`;
  if (!key) return `${input}.`;
  const sig = header.alg === 'ES256'
    ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
    : sign('sha256', Buffer.from(input), key);
  return `${input}.${sig.toString('base64url')}`;
}

interface Answer { status: number; body: unknown; headers?: Record<string, string>; cut?: true }

/** An OpenID provider whose every answer a test can replace; it records what it was asked. */
const idp = {
  base: '',
  port: 0,
  doc: {} as Record<string, unknown>,
  jwks: { status: 200, body: { keys: KEYS } } as Answer,
  token: null as Answer | null,
  userinfo: { status: 200, body: {} } as Answer,
  requests: [] as { path: string; authorization?: string; form?: URLSearchParams }[],
  /** The discovery document: this issuer's endpoints, then the test's changes. */
  document(): Record<string, unknown> {
    return {
      issuer: this.base, authorization_endpoint: `${this.base}/authorize`, token_endpoint: `${this.base}/token`,
      jwks_uri: `${this.base}/jwks`, userinfo_endpoint: `${this.base}/userinfo`,
      id_token_signing_alg_values_supported: ['RS256', 'ES256', 'PS256', 'HS256', 'none'], ...this.doc,
    };
  },
  reset() {
    this.doc = {};
    this.jwks = { status: 200, body: { keys: KEYS } };
    this.token = null;
    this.userinfo = { status: 200, body: {} };
    this.requests = [];
  },
};

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let raw = '';
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    const path = new URL(req.url!, 'http://x').pathname;
    idp.requests.push({ path, authorization: req.headers.authorization, form: req.method === 'POST' ? new URLSearchParams(raw) : undefined });
    const a: Answer = path === '/.well-known/openid-configuration' ? { status: 200, body: idp.document() }
      : path === '/jwks' ? idp.jwks
      : path === '/token' ? idp.token ?? { status: 200, body: tokens() }
      : path === '/userinfo' ? idp.userinfo
      : { status: 404, body: { error: 'not_found' } };
    const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    if (a.cut) {
      // Half an answer, then the connection drops.
      res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': String(text.length * 2) });
      res.write(text.slice(0, text.length >> 1), () => res.socket?.destroy());
      return;
    }
    res.writeHead(a.status, { 'content-type': typeof a.body === 'string' ? 'text/plain' : 'application/json', ...a.headers }).end(text);
  });
});

const CLIENT = 'gw';
const claims = (over: Record<string, unknown> = {}) => ({
  iss: idp.base, aud: CLIENT, sub: 's-1', exp: nowS() + 300, iat: nowS(), nonce: 'n-1',
  email: 'Asha@Example.com', email_verified: true, name: 'Asha', ...over,
});
/** A token answer around an id_token (RS256 with the published key unless told otherwise). */
function tokens(idToken = jwt({ alg: 'RS256', kid: 'r1' }, claims(), rsa.privateKey)): Record<string, unknown> {
  return { access_token: 'at-1', token_type: 'Bearer', id_token: idToken };
}
const answer = (idToken: string): Answer => ({ status: 200, body: tokens(idToken) });

const quiet = new IdpHttp(createLogger('error', () => {}), {}, 3_000);
const settings = (over: Partial<OidcSettings> = {}): OidcSettings => ({
  clientId: CLIENT, clientSecret: 'secret', issuer: idp.base, scope: 'openid email profile', allowHttp: true, ...over,
});
const client = (over: Partial<OidcSettings> = {}, http = quiet) => new OidcClient('acme', settings(over), http);

const REDIRECT = 'https://gw.example/auth/acme/callback';
const finish = (c: OidcClient, over: Partial<FinishRequest> = {}) => c.finish({
  redirectUri: REDIRECT, callbackParams: new URLSearchParams({ code: 'c-1', state: 's-1' }), state: 's-1', code: 'c-1',
  codeVerifier: 'v'.repeat(43), nonce: 'n-1', ...over,
});

async function refusal(p: Promise<unknown>, status = 400): Promise<string> {
  const e = await p.then(() => null, (err: unknown) => err);
  assert.instance(e, GatewayError, String(e));
  assert.is((e as GatewayError).status, status, (e as Error).message);
  assert.is((e as GatewayError).code, status === 400 ? 'bad_request' : 'unavailable');
  return (e as GatewayError).message;
}
const idTokenRefusal = async (idToken: string) => {
  idp.token = answer(idToken);
  return refusal(finish(client()));
};
const rs = (over: Record<string, unknown>) => jwt({ alg: 'RS256', kid: 'r1' }, claims(over), rsa.privateKey);

test.before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  idp.port = (server.address() as AddressInfo).port;
  idp.base = `http://127.0.0.1:${idp.port}`;
});
test.before.each(() => idp.reset());
test.after(() => new Promise<void>((r) => server.close(() => r())));

test('the authorize URL carries PKCE S256, state, nonce, scope and the redirect_uri', async () => {
  const url = new URL(await client().authorizeUrl({ redirectUri: REDIRECT, state: 'st', codeChallenge: 'ch', nonce: 'nn' }));
  assert.is(url.origin + url.pathname, `${idp.base}/authorize`);
  assert.equal(Object.fromEntries(url.searchParams), {
    redirect_uri: REDIRECT, scope: 'openid email profile', state: 'st', code_challenge: 'ch', code_challenge_method: 'S256',
    nonce: 'nn', client_id: CLIENT, response_type: 'code',
  });
});

test('an RS256 and an ES256 id_token sign in; the code goes with the PKCE verifier and client_secret_basic', async () => {
  const profile = await finish(client());
  assert.equal(profile, { subject: 's-1', email: 'asha@example.com', name: 'Asha', avatarUrl: null });
  const tok = idp.requests.find((r) => r.path === '/token')!;
  assert.is(tok.form!.get('code'), 'c-1');
  assert.is(tok.form!.get('code_verifier'), 'v'.repeat(43));
  assert.is(tok.form!.get('redirect_uri'), REDIRECT);
  assert.is(tok.form!.get('client_secret'), null);
  assert.is(tok.authorization, `Basic ${Buffer.from('gw:secret').toString('base64')}`);
  assert.ok(idp.requests.some((r) => r.path === '/jwks'), 'the signature was checked against the published keys');

  idp.token = answer(jwt({ alg: 'ES256', kid: 'e1' }, claims({ sub: 's-2' }), ec.privateKey));
  assert.is((await finish(client())).subject, 's-2');
});

test('client_secret_post when the provider lists only that', async () => {
  idp.doc = { token_endpoint_auth_methods_supported: ['client_secret_post'] };
  await finish(client());
  const tok = idp.requests.find((r) => r.path === '/token')!;
  assert.is(tok.form!.get('client_secret'), 'secret');
  assert.is(tok.authorization, undefined);
});

test('claims: issuer, audience, azp, expiry with a minute of skew, nbf, nonce and subject are checked', async () => {
  for (const ok of [{ aud: [CLIENT], exp: nowS() - 30 }, { aud: [CLIENT, 'other'], azp: CLIENT }]) {
    idp.token = answer(rs(ok));
    await finish(client());
  }
  assert.match(await idTokenRefusal(rs({ iss: 'https://evil.example' })), /id_token is invalid: issuer "https:\/\/evil.example"/);
  assert.match(await idTokenRefusal(rs({ aud: 'other' })), /id_token is invalid: .*\(aud\)/);
  assert.match(await idTokenRefusal(rs({ aud: [CLIENT, 'other'] })), /\(azp\)/);
  assert.match(await idTokenRefusal(rs({ aud: [CLIENT, 'other'], azp: 'other' })), /\(azp\)/);
  assert.match(await idTokenRefusal(rs({ azp: 'other' })), /\(azp\)/, 'an azp naming another client, even with one audience');
  assert.match(await idTokenRefusal(rs({ exp: nowS() - 61 })), /expired/);
  assert.match(await idTokenRefusal(rs({ exp: undefined })), /no expiry/);
  assert.match(await idTokenRefusal(rs({ nbf: nowS() + 120 })), /not valid yet/);
  assert.match(await idTokenRefusal(rs({ nonce: 'n-2' })), /nonce/);
  assert.match(await idTokenRefusal(rs({ nonce: undefined })), /nonce/);
  assert.match(await idTokenRefusal(rs({ sub: undefined })), /no subject/);
  assert.match(await idTokenRefusal(rs({ sub: '' })), /returned no account id/);
});

test('checked now and not before: an id_token without iat is refused', async () => {
  assert.match(await idTokenRefusal(rs({ iat: undefined })), /id_token is invalid: its iat claim is missing/);
});

test('alg none, HS256 (the client secret as key) and PS256 are refused before any key is fetched', async () => {
  assert.match(await idTokenRefusal(jwt({ alg: 'none' }, claims(), null)), /algorithm none is not accepted \(RS256 or ES256\)/);
  const input = `${b64({ alg: 'HS256' })}.${b64(claims())}`;
  assert.match(await idTokenRefusal(`${input}.${createHmac('sha256', 'secret').update(input).digest('base64url')}`), /algorithm HS256/);
  assert.match(await idTokenRefusal(jwt({ alg: 'PS256', kid: 'r1' }, claims(), null)), /algorithm PS256/);
  assert.match(await idTokenRefusal('a.b'), /not a signed JWT/);
  assert.match(await idTokenRefusal(jwt({ alg: 'RS256', kid: 'r1', crit: ['exp'] }, claims(), rsa.privateKey)), /critical/);
  assert.not.ok(idp.requests.some((r) => r.path === '/jwks'));
});

test('a forged payload, a key not in the set, another kid, or a key marked for encryption do not verify', async () => {
  const [h, , s] = rs({}).split('.');
  assert.match(await idTokenRefusal(`${h}.${b64(claims({ sub: 'admin' }))}.${s}`), /signature does not verify/);
  assert.match(await idTokenRefusal(jwt({ alg: 'RS256', kid: 'r1' }, claims(), stranger.privateKey)), /signature does not verify/);
  assert.match(await idTokenRefusal(jwt({ alg: 'RS256', kid: 'r2' }, claims(), rsa.privateKey)), /signature does not verify/);
  idp.jwks = { status: 200, body: { keys: [{ ...KEYS[0], use: 'enc' }] } };
  assert.match(await idTokenRefusal(rs({})), /signature does not verify/);
});

test('the userinfo endpoint fills in the email when the id_token has none; an answer about another account is refused', async () => {
  const bare = rs({ email: undefined, email_verified: undefined, name: undefined });
  idp.token = answer(bare);
  idp.userinfo = { status: 200, body: { sub: 's-1', email: 'vikram@corp.example', email_verified: true, name: 'Vikram' } };
  assert.equal(await finish(client()), { subject: 's-1', email: 'vikram@corp.example', name: 'Vikram', avatarUrl: null });
  assert.is(idp.requests.find((r) => r.path === '/userinfo')!.authorization, 'Bearer at-1');

  idp.userinfo = { status: 200, body: { sub: 's-9', email: 'other@corp.example' } };
  assert.match(await refusal(finish(client())), /userinfo describes another account/);
  idp.userinfo = { status: 401, body: '', headers: { 'www-authenticate': 'Bearer error="invalid_token"' } };
  assert.match(await refusal(finish(client())), /the userinfo request was refused \(invalid_token\)/);
  idp.token = answer(rs({ email_verified: false }));
  assert.match(await refusal(finish(client())), /not verified/);
});

test("a refused code exchange names the provider's error code, else its HTTP status", async () => {
  idp.token = { status: 400, body: { error: 'invalid_grant', error_description: 'code expired' } };
  assert.match(await refusal(finish(client())), /Sign-in with 'acme' failed: the token exchange was refused \(invalid_grant\)/);
  idp.token = { status: 401, body: { error: 'invalid_client' }, headers: { 'www-authenticate': 'Basic realm="idp"' } };
  assert.match(await refusal(finish(client())), /token exchange was refused \(invalid_client\)/);
  idp.token = { status: 500, body: 'oops' };
  assert.match(await refusal(finish(client())), /token exchange was refused \(HTTP 500\)/);
  idp.token = { status: 200, body: { access_token: 'at-1', token_type: 'Bearer' } };
  assert.match(await refusal(finish(client())), /token exchange was refused/, 'no id_token');
});

test('a token answer cut off mid-body is the provider failing (503 unavailable), not a bug here (500)', async () => {
  idp.token = { ...answer(rs({})), cut: true };
  assert.match(await refusal(finish(client()), 503), /did not answer in full \(the token exchange\)/);
});

test('new: a callback that names another issuer (RFC 9207 iss), or none where the provider promises it, is refused', async () => {
  const params = new URLSearchParams({ code: 'c-1', state: 's-1', iss: 'https://evil.example' });
  assert.match(await refusal(finish(client(), { callbackParams: params })), /does not come from this provider \(iss\)/);
  idp.doc = { authorization_response_iss_parameter_supported: true };
  assert.match(await refusal(finish(client())), /\(iss\)/);
  params.set('iss', idp.base);
  await finish(client(), { callbackParams: params });
  assert.is(idp.requests.filter((r) => r.path === '/token').length, 1, 'the refused callbacks never reached the token endpoint');
});

test('discovery: another issuer, a missing jwks_uri, or unreadable keys are 503 unavailable; a trailing slash on either side is fine', async () => {
  idp.doc = { issuer: 'https://elsewhere.example' };
  assert.match(await refusal(client().authorizeUrl({ redirectUri: REDIRECT, state: 's', codeChallenge: 'c', nonce: 'n' }), 503), /discovery document could not be read/);
  idp.doc = { jwks_uri: undefined };
  assert.match(await refusal(finish(client()), 503), /discovery document/);
  idp.doc = { issuer: `${idp.base}/` };
  idp.token = answer(rs({ iss: `${idp.base}/` }));
  await finish(client());
  idp.reset();
  await finish(client({ issuer: `${idp.base}/` }));
  idp.jwks = { status: 500, body: 'down' };
  assert.match(await refusal(finish(client()), 503), /signing keys \(JWKS\) could not be read/);
});

test('new: without allowHttp the client speaks https only (openid-client refuses plain http)', async () => {
  assert.match(await refusal(finish(client({ allowHttp: false })), 503), /discovery document/);
  assert.is(idp.requests.length, 0, 'nothing was sent in the clear');
});

test('a failed discovery is not cached: the next sign-in asks again', async () => {
  const c = client();
  idp.doc = { issuer: 'https://elsewhere.example' };
  await refusal(finish(c), 503);
  idp.doc = {};
  await finish(c);
  await finish(c);
  assert.is(idp.requests.filter((r) => r.path === '/.well-known/openid-configuration').length, 2, 'then cached');
});

test('every call of a sign-in goes through the forward proxy, with its credentials', async () => {
  const proxy = await startHttpProxy({ user: 'gw', password: 's3cret', hosts: { 'idp.test': '127.0.0.1' } });
  const loopback = idp.base;
  idp.base = `http://idp.test:${idp.port}`;
  try {
    const http = new IdpHttp(createLogger('error', () => {}), { httpProxy: `http://gw:s3cret@127.0.0.1:${proxy.port}` }, 3_000);
    const c = new OidcClient('acme', settings({ issuer: idp.base }), http);
    // idp.test has no address outside the proxy: a sign-in that completes went through it.
    assert.is((await finish(c)).subject, 's-1');
    assert.equal(idp.requests.map((r) => r.path), ['/.well-known/openid-configuration', '/token', '/jwks']);
    assert.ok(proxy.log.length > 0);
    for (const l of proxy.log) {
      assert.ok(l.target.includes(`idp.test:${idp.port}`), l.target);
      assert.is(l.authorization, `Basic ${Buffer.from('gw:s3cret').toString('base64')}`);
    }
  } finally {
    idp.base = loopback;
    await proxy.close();
  }
});

test.run();
