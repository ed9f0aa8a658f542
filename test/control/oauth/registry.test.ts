import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { IdpHttp } from '../../../src/control/oauth/idp-http.js';
import { signInProviders } from '../../../src/control/oauth/registry.js';
import { createLogger } from '../../../src/lib/logger.js';

const http = new IdpHttp(createLogger('error', () => {}));
const config = (auth: Record<string, unknown>) => loadConfig({ env: {}, overrides: { auth } });

test('google and github are known but not configured without both client id and secret; auth.oidc ids join them', () => {
  const p = signInProviders(config({
    google: { clientId: 'only-the-id' },
    oidc: { acme: { issuer: 'https://idp.example', clientId: 'a', clientSecret: 'b' }, half: { issuer: 'https://idp.example' } },
  }).auth, http);
  assert.equal([...p.keys()].sort(), ['acme', 'github', 'google', 'half']);
  assert.is(p.get('google'), null);
  assert.is(p.get('github'), null);
  assert.is(p.get('half'), null);
  assert.is(p.get('acme')?.id, 'acme');
  assert.is(p.get('acme')?.usesNonce, true);
  assert.is(p.get('facebook'), undefined);
});

test('an auth.oidc entry gets the default scope like google does', () => {
  const c = config({ oidc: { acme: { issuer: 'https://idp.example' } } });
  assert.is(c.auth.oidc.acme.scope, 'openid email profile');
});

test('auth.oidc ids that would shadow a route or a built-in provider are refused at start', () => {
  for (const id of ['google', 'github', 'link', 'logout']) {
    try {
      signInProviders(config({ oidc: { [id]: { issuer: 'https://idp.example', clientId: 'a', clientSecret: 'b' } } }).auth, http);
      assert.unreachable(id);
    } catch (e) {
      assert.instance(e, ConfigError);
      assert.match((e as Error).message, new RegExp(`/auth/oidc/${id}: '${id}' is reserved`));
    }
  }
});

test('a provider URL that cannot be parsed stops start-up with its config path', () => {
  for (const [auth, where] of [
    [{ github: { authorizeUrl: 'https://[broken' } }, '/auth/github/authorizeUrl'],
    [{ oidc: { corp: { issuer: 'https://exa mple.com' } } }, '/auth/oidc/corp/issuer'],
  ] as const) {
    try {
      signInProviders(config(auth).auth, http);
      assert.unreachable(where);
    } catch (e) {
      assert.instance(e, ConfigError);
      assert.match((e as Error).message, `invalid config at ${where}`);
    }
  }
});

test('new: an OpenID issuer on plain http off loopback stops start-up unless allowHttp is set beside it', () => {
  try {
    signInProviders(config({ oidc: { corp: { issuer: 'http://sso.corp.example', clientId: 'a', clientSecret: 'b' } } }).auth, http);
    assert.unreachable('plain http accepted');
  } catch (e) {
    assert.instance(e, ConfigError);
    assert.match((e as Error).message, "invalid config at /auth/oidc/corp/issuer: 'http://sso.corp.example' is plain http");
    assert.match((e as Error).message, 'allowHttp: true');
  }
  const p = signInProviders(config({
    google: { clientId: 'g', clientSecret: 's', issuer: 'http://127.0.0.1:9999' },
    oidc: {
      corp: { issuer: 'http://sso.corp.example', clientId: 'a', clientSecret: 'b', allowHttp: true },
      dev: { issuer: 'http://localhost:5556/dex', clientId: 'a', clientSecret: 'b' },
      v6: { issuer: 'http://[::1]:8080', clientId: 'a', clientSecret: 'b' },
    },
  }).auth, http);
  assert.equal(['google', 'corp', 'dev', 'v6'].map((id) => p.get(id)?.id), ['google', 'corp', 'dev', 'v6']);
});

test('the GitHub authorize URL keeps the configured query and adds PKCE S256, state and the redirect_uri', async () => {
  const p = signInProviders(config({
    github: { clientId: 'id', clientSecret: 's', authorizeUrl: 'https://ghe.example/login/oauth/authorize?tenant=t1' },
  }).auth, http).get('github')!;
  const url = new URL(await p.authorizeUrl({ redirectUri: 'https://gw.example/auth/github/callback', state: 'st', codeChallenge: 'ch', nonce: null }));
  assert.is(url.origin + url.pathname, 'https://ghe.example/login/oauth/authorize');
  assert.equal(Object.fromEntries(url.searchParams), {
    tenant: 't1', client_id: 'id', redirect_uri: 'https://gw.example/auth/github/callback', scope: 'read:user user:email',
    state: 'st', code_challenge: 'ch', code_challenge_method: 'S256', response_type: 'code',
  });
});

test.run();
