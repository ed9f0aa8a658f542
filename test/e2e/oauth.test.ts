import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startGithubOAuthServer, type GithubOAuthServer, type GithubUser } from '../support/github-oauth-server.js';
import { startOidcServer, type OidcServer } from '../support/oidc-server.js';

// A real OpenID provider with Google-style id_tokens (claims inside, RS256), a second one that
// gives claims only from userinfo (ES256 tokens, client_secret_post), a GitHub-style server, and
// the real gateway between them, all on 127.0.0.1.
let gw: GatewayProcess;
let idp: OidcServer;
let idp2: OidcServer;
let gh: GithubOAuthServer;

const cb = (provider: string) => `${gw.url}/auth/${provider}/callback`;

test.before(async () => {
  try {
    await setUp();
  } catch (e) {
    console.error(e); // uvu drops errors thrown by hooks
    throw e;
  }
});

async function setUp(): Promise<void> {
  idp = await startOidcServer({ claimsInIdToken: true });
  idp2 = await startOidcServer();
  gh = await startGithubOAuthServer({ redirectUri: () => cb('github') });
  gw = await startGateway({
    limits: { publicRpmPerIp: 10_000 },
    auth: {
      google: { clientId: 'gw-google', clientSecret: 'google-secret', issuer: idp.issuer },
      github: {
        clientId: gh.clientId, clientSecret: gh.clientSecret, apiUrl: gh.url,
        authorizeUrl: `${gh.url}/login/oauth/authorize`, tokenUrl: `${gh.url}/login/oauth/access_token`,
      },
      oidc: {
        acme: { clientId: 'gw-acme', clientSecret: 'acme-secret', issuer: idp.issuer },
        corp: { clientId: 'gw-corp', clientSecret: 'corp-secret', issuer: `${idp2.issuer}/` },
        badsecret: { clientId: 'gw-badsecret', clientSecret: 'not-the-secret', issuer: idp.issuer },
        pstoken: { clientId: 'gw-ps', clientSecret: 'ps-secret', issuer: idp.issuer },
        nocreds: { issuer: idp.issuer },
        down: { clientId: 'x', clientSecret: 'y', issuer: 'http://127.0.0.1:1' },
      },
    },
  });
  await idp.configure([
    { client_id: 'gw-google', client_secret: 'google-secret', redirect_uris: [cb('google')] },
    { client_id: 'gw-acme', client_secret: 'acme-secret', redirect_uris: [cb('acme')], token_endpoint_auth_method: 'client_secret_post' },
    { client_id: 'gw-badsecret', client_secret: 'the-real-secret', redirect_uris: [cb('badsecret')] },
    { client_id: 'gw-ps', client_secret: 'ps-secret', redirect_uris: [cb('pstoken')], id_token_signed_response_alg: 'PS256' },
  ]);
  await idp2.configure([{
    client_id: 'gw-corp', client_secret: 'corp-secret', redirect_uris: [cb('corp')],
    id_token_signed_response_alg: 'ES256', token_endpoint_auth_method: 'client_secret_post',
  }]);
  idp.accounts.set('g-asha', { email: 'Asha@Example.com', email_verified: true, name: 'Asha Rao', picture: 'https://img.example/asha.png' });
  idp.accounts.set('g-unverified', { email: 'nobody@example.com', email_verified: false, name: 'Nobody' });
  idp2.accounts.set('c-vikram', { email: 'vikram@corp.example', email_verified: true, name: 'Vikram' });
}
test.after(async () => {
  await gw?.cleanup();
  await Promise.all([idp?.close(), idp2?.close(), gh?.close()]);
});

/** A browser's cookie jar: cookies kept per origin and path, sent back where they belong. */
class Browser {
  readonly #jar = new Map<string, { origin: string; path: string; value: string }>();

  async go(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const u = new URL(url);
    const cookie = [...this.#jar.entries()]
      .filter(([, c]) => c.origin === u.origin && u.pathname.startsWith(c.path))
      .map(([k, c]) => `${k.split('|')[2]}=${c.value}`).join('; ');
    const res = await fetch(url, {
      method: init.method ?? 'GET', redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    });
    for (const sc of res.headers.getSetCookie()) {
      const [pair, ...attrs] = sc.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) || '/';
      const key = `${u.origin}|${path}|${name}`;
      const gone = attrs.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      if (gone) this.#jar.delete(key);
      else this.#jar.set(key, { origin: u.origin, path, value: pair.slice(eq + 1) });
    }
    return res;
  }

  /** GET /auth/<provider>[?query] at the gateway: returns the provider's authorize URL. */
  async start(provider: string, query = ''): Promise<string> {
    const res = await this.go(`${gw.url}/auth/${provider}${query}`);
    assert.is(res.status, 302, `start ${provider}: ${res.status} ${await res.clone().text()}`);
    return res.headers.get('location')!;
  }

  /**
   * Follows the provider's redirects and answers its login and consent pages, as a user would,
   * until the browser is sent to the gateway's callback; returns that callback URL (not yet visited).
   */
  async atProvider(url: string, login: string, opts: { cancel?: boolean } = {}): Promise<string> {
    for (let hops = 0; hops < 20; hops++) {
      if (url.startsWith(`${gw.url}/`)) return url;
      let res = await this.go(url);
      if (res.status === 200 && (res.headers.get('content-type') ?? '').includes('html')) {
        const html = await res.text();
        if (opts.cancel) res = await this.go(`${url}/abort`);
        else {
          const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
          const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
          assert.ok(action && prompt, `an interaction form at ${url}`);
          res = await this.go(new URL(action!, url).href, {
            method: 'POST', form: prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt! },
          });
        }
      }
      const next = res.headers.get('location');
      assert.ok(res.status >= 300 && res.status < 400 && next, `a redirect from ${url}, got ${res.status}`);
      url = new URL(next!, url).href;
    }
    throw new Error('too many redirects at the provider');
  }

  /** The whole sign-in: start, provider, callback. Returns the gateway callback's answer. */
  async signIn(provider: string, login: string, query = ''): Promise<Response> {
    return this.go(await this.atProvider(await this.start(provider, query), login));
  }

  me(): Promise<Response> {
    return this.go(`${gw.url}/me`);
  }
}

const githubUser = (over: Partial<GithubUser> = {}): GithubUser => ({
  id: 583231, login: 'octo-dev', name: 'Octo Dev', avatar_url: 'https://avatars.example/u/583231',
  emails: [
    { email: 'octo-old@example.com', primary: false, verified: true },
    { email: 'octo@example.com', primary: true, verified: true },
  ],
  ...over,
});

async function errorOf(res: Response): Promise<{ status: number; code: string; type: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; type: string; message: string } };
  return { status: res.status, ...body.error };
}

function readDb<T>(fn: (db: Database.Database) => T, writable = false): T {
  const db = new Database(gw.dbPath, { readonly: !writable });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

test('the authorize redirect carries PKCE S256, state, nonce, the exact redirect_uri and client id; the state is kept 10 minutes', async () => {
  const b = new Browser();
  const res = await b.go(`${gw.url}/auth/google`);
  assert.is(res.status, 302);
  const at = new URL(res.headers.get('location')!);
  assert.is(at.origin, idp.issuer, 'endpoint from the discovery document');
  const q = at.searchParams;
  assert.is(q.get('response_type'), 'code');
  assert.is(q.get('client_id'), 'gw-google');
  assert.is(q.get('redirect_uri'), cb('google'));
  assert.is(q.get('scope'), 'openid email profile');
  assert.is(q.get('code_challenge_method'), 'S256');
  assert.match(q.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  assert.match(q.get('state')!, /^[A-Za-z0-9_-]{43}$/);
  assert.match(q.get('nonce')!, /^[A-Za-z0-9_-]{43}$/);
  assert.match(res.headers.get('set-cookie')!, /^gw_oauth=[A-Za-z0-9_-]{43}; Path=\/auth; HttpOnly; SameSite=Lax; Max-Age=600/);
  const row = readDb((db) => db.prepare('SELECT * FROM oauth_states WHERE state = ?').get(q.get('state'))) as any;
  assert.is(row.provider, 'google');
  assert.is(row.expires_at - row.created_at, 600_000);
  assert.is(row.nonce, q.get('nonce'));
  assert.not.ok(JSON.stringify(row).includes(q.get('code_challenge')!), 'only the verifier is stored, never sent');

  const ghAt = new URL(await new Browser().start('github'));
  assert.is(ghAt.origin + ghAt.pathname, `${gh.url}/login/oauth/authorize`);
  assert.is(ghAt.searchParams.get('code_challenge_method'), 'S256');
  assert.match(ghAt.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  assert.is(ghAt.searchParams.get('redirect_uri'), cb('github'));
  assert.is(ghAt.searchParams.get('nonce'), null, 'no nonce for plain OAuth 2');
});

test('a Google sign-in through a real OpenID provider ends in a session; the first creates user and personal org, the second reuses them', async () => {
  const b = new Browser();
  const res = await b.signIn('google', 'g-asha');
  assert.is(res.status, 302, await res.clone().text());
  assert.is(res.headers.get('location'), '/', 'lands on the dashboard');
  assert.match(res.headers.get('set-cookie')!, /^gw_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
  assert.ok(res.headers.getSetCookie().some((c) => /^gw_oauth=; Path=\/auth;.*Max-Age=0/.test(c)), 'the state-binding cookie is cleared');
  const me = (await (await b.me()).json()) as any;
  assert.is(me.email, 'asha@example.com');
  assert.is(me.name, 'Asha Rao');
  assert.is(me.avatar_url, 'https://img.example/asha.png');
  assert.is(me.role, 'owner');
  assert.is(me.org.personal, true);

  const again = new Browser();
  assert.is((await again.signIn('google', 'g-asha')).status, 302);
  const me2 = (await (await again.me()).json()) as any;
  assert.is(me2.id, me.id);
  assert.is(me2.org.id, me.org.id);
  const rows = readDb((db) => ({
    identities: db.prepare('SELECT provider, subject FROM user_identities WHERE user_id = ?').all(me.id),
    personalOrgs: db.prepare('SELECT COUNT(*) FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = ? AND o.personal = 1').pluck().get(me.id),
    users: db.prepare("SELECT COUNT(*) FROM users WHERE email = 'asha@example.com'").pluck().get(),
  }));
  assert.equal(rows.identities, [{ provider: 'google', subject: 'g-asha' }]);
  assert.is(rows.personalOrgs, 1);
  assert.is(rows.users, 1);
});

test('any OpenID issuer works under auth.oidc: the same issuer with client_secret_post, and another with userinfo claims and ES256 tokens', async () => {
  const b = new Browser();
  let res = await b.signIn('acme', 'g-asha');
  assert.is(res.status, 302, await res.clone().text());
  const asha = (await (await b.me()).json()) as any;
  assert.is(asha.email, 'asha@example.com', 'the same verified email finds the same user');

  const c = new Browser();
  res = await c.signIn('corp', 'c-vikram');
  assert.is(res.status, 302, await res.clone().text());
  const me = (await (await c.me()).json()) as any;
  assert.is(me.email, 'vikram@corp.example');
  assert.is(me.name, 'Vikram');
  const ids = readDb((db) => db.prepare('SELECT provider, subject FROM user_identities WHERE user_id = ? ORDER BY provider').all(me.id));
  assert.equal(ids, [{ provider: 'corp', subject: 'c-vikram' }]);
});

test('a GitHub sign-in: the server checks the PKCE verifier; the primary verified email, the id as subject and login when no name', async () => {
  gh.signInAs(githubUser({ name: null }));
  const b = new Browser();
  const res = await b.signIn('github', '');
  assert.is(res.status, 302, await res.clone().text());
  const tok = gh.tokenRequests.at(-1)!;
  assert.match(tok.get('code_verifier')!, /^[A-Za-z0-9_-]{43}$/);
  assert.is(tok.get('redirect_uri'), cb('github'));
  const me = (await (await b.me()).json()) as any;
  assert.is(me.email, 'octo@example.com');
  assert.is(me.name, 'octo-dev');
  assert.is(me.avatar_url, 'https://avatars.example/u/583231');
  const ids = readDb((db) => db.prepare('SELECT provider, subject FROM user_identities WHERE user_id = ?').all(me.id));
  assert.equal(ids, [{ provider: 'github', subject: '583231' }]);
});

test('a used state is refused: replaying the callback URL gives 400 bad_request', async () => {
  gh.signInAs(githubUser());
  const b = new Browser();
  const callback = await b.atProvider(await b.start('github'), '');
  assert.is((await b.go(callback)).status, 302);
  const again = await errorOf(await b.go(callback));
  assert.equal([again.status, again.code, again.type], [400, 'bad_request', 'invalid_request_error']);
  assert.match(again.message, /unknown, expired or already used/);
});

test("a state started with one provider is refused at another provider's callback", async () => {
  const b = new Browser();
  const state = new URL(await b.start('github')).searchParams.get('state')!;
  const e = await errorOf(await b.go(`${cb('google')}?code=abc&state=${state}`));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /started with 'github'/);
  const later = await errorOf(await b.go(`${cb('github')}?code=abc&state=${state}`));
  assert.is(later.status, 400, 'the state was used up by the refused attempt');
});

test('a callback in a browser that did not start the sign-in is refused (login CSRF)', async () => {
  gh.signInAs(githubUser());
  const attacker = new Browser();
  const callback = await attacker.atProvider(await attacker.start('github'), '');
  const e = await errorOf(await new Browser().go(callback));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /another browser/);
});

test('an expired state, and a callback without code or state, give 400 bad_request', async () => {
  const b = new Browser();
  const state = new URL(await b.start('google')).searchParams.get('state')!;
  readDb((db) => db.prepare('UPDATE oauth_states SET expires_at = created_at - 1 WHERE state = ?').run(state), true);
  let e = await errorOf(await b.go(`${cb('google')}?code=abc&state=${state}`));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /expired/);
  e = await errorOf(await b.go(cb('google')));
  assert.equal([e.status, e.code], [400, 'bad_request']);
});

test("the provider's error (the user cancels at the provider) gives 400 bad_request", async () => {
  const b = new Browser();
  const callback = await b.atProvider(await b.start('google'), 'g-asha', { cancel: true });
  assert.is(new URL(callback).searchParams.get('error'), 'access_denied', 'a real error redirect from the OpenID provider');
  let e = await errorOf(await b.go(callback));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /access_denied/);

  gh.denyNext();
  e = await errorOf(await b.go(await b.atProvider(await b.start('github'), '')));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /access_denied/);
});

test('a failed token exchange gives 400: a forged code at GitHub, a wrong client secret at the OpenID provider', async () => {
  const b = new Browser();
  const state = new URL(await b.start('github')).searchParams.get('state')!;
  let e = await errorOf(await b.go(`${cb('github')}?code=forged&state=${state}`));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /token exchange was refused \(bad_verification_code\)/);

  e = await errorOf(await new Browser().signIn('badsecret', 'g-asha'));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /token exchange was refused \(invalid_client\)/);
});

test('an id_token signed with an algorithm other than RS256 or ES256 is refused with 400', async () => {
  const e = await errorOf(await new Browser().signIn('pstoken', 'g-asha'));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /id_token is invalid: algorithm PS256/);
});

test('new: a callback naming another issuer (RFC 9207 iss, a mix-up attack) is refused with 400 before the code is used', async () => {
  const b = new Browser();
  const callback = new URL(await b.atProvider(await b.start('google'), 'g-asha'));
  assert.is(callback.searchParams.get('iss'), idp.issuer, 'the OpenID provider names itself in the callback');
  callback.searchParams.set('iss', idp2.issuer);
  const e = await errorOf(await b.go(callback.href));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /does not come from this provider \(iss\)/);
});

test('an account whose email the provider has not verified is refused, at an OpenID provider and at GitHub', async () => {
  let e = await errorOf(await new Browser().signIn('google', 'g-unverified'));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /not verified/);
  gh.signInAs(githubUser({ id: 9, login: 'nomail', emails: [{ email: 'nomail@example.com', primary: true, verified: false }] }));
  e = await errorOf(await new Browser().signIn('github', ''));
  assert.equal([e.status, e.code], [400, 'bad_request']);
  assert.match(e.message, /no verified primary email/);
});

test('503 provider_not_configured without client credentials; 404 not_found for an unknown provider; 503 unavailable when the issuer is down', async () => {
  for (const path of ['/auth/nocreds', '/auth/nocreds/callback?code=a&state=b']) {
    const e = await errorOf(await fetch(gw.url + path, { redirect: 'manual' }));
    assert.equal([e.status, e.code, e.type], [503, 'provider_not_configured', 'server_error'], path);
  }
  for (const path of ['/auth/facebook', '/auth/facebook/callback?code=a&state=b']) {
    const e = await errorOf(await fetch(gw.url + path, { redirect: 'manual' }));
    assert.equal([e.status, e.code], [404, 'not_found'], path);
  }
  const e = await errorOf(await fetch(`${gw.url}/auth/down`, { redirect: 'manual' }));
  assert.equal([e.status, e.code], [503, 'unavailable']);
});

test('return_to is honoured for a same-site path; absolute and protocol-relative ones fall back to the dashboard (/)', async () => {
  gh.signInAs(githubUser());
  const cases: [string, string][] = [
    ['/me/keys?tab=active', '/me/keys?tab=active'],
    ['https://evil.example/phish', '/'],
    ['//evil.example/phish', '/'],
    ['/\\evil.example', '/'],
    ['me', '/'],
  ];
  for (const [returnTo, landing] of cases) {
    const res = await new Browser().signIn('github', '', `?return_to=${encodeURIComponent(returnTo)}`);
    assert.is(res.status, 302);
    assert.is(res.headers.get('location'), landing, returnTo);
  }
});

test('/auth/link still reaches the login-link route, not a provider named link; /auth/logout is not a provider either', async () => {
  let r = await fetch(`${gw.url}/auth/link?token=nope`, { redirect: 'manual' });
  assert.equal([r.status, ((await r.json()) as any).error.code], [403, 'forbidden']);
  const { url } = await gw.cli('login-link', '--email', 'operator@example.com', '--base-url', gw.url);
  r = await fetch(url, { redirect: 'manual' });
  assert.is(r.status, 302);
  assert.match(r.headers.get('set-cookie')!, /^gw_session=/);
  r = await fetch(`${gw.url}/auth/logout`, { redirect: 'manual' });
  assert.equal([r.status, ((await r.json()) as any).error.code], [405, 'method_not_allowed'], 'GET /auth/logout never starts a sign-in');
});

test('a provider id with a malformed %-escape gives 400 and the gateway stays up', async () => {
  for (const path of ['/auth/%E0%A4%A', '/auth/%E0%A4%A/callback?code=a&state=b']) {
    const e = await errorOf(await fetch(gw.url + path, { redirect: 'manual' }));
    assert.equal([e.status, e.code], [400, 'bad_request'], path);
  }
  assert.is((await fetch(`${gw.url}/health`)).status, 200);
});

test('logout ends an OAuth session: /me then gives 401 no_session', async () => {
  gh.signInAs(githubUser());
  const b = new Browser();
  assert.is((await b.signIn('github', '')).status, 302);
  assert.is((await b.me()).status, 200);
  const out = await b.go(`${gw.url}/auth/logout`, { method: 'POST' });
  assert.is(out.status, 200);
  const e = await errorOf(await b.me());
  assert.equal([e.status, e.code], [401, 'no_session']);
});

test('client credentials and the base URL can come from GW_* variables', async () => {
  const other = await startGateway({ auth: { github: { authorizeUrl: `${gh.url}/login/oauth/authorize` } } }, {
    GW_GITHUB_CLIENT_ID: 'env-id', GW_GITHUB_CLIENT_SECRET: 'env-secret', GW_GOOGLE_CLIENT_ID: 'g-only-id',
    GW_BASE_URL: 'https://gw.example.org/',
  });
  try {
    const r = await fetch(`${other.url}/auth/github`, { redirect: 'manual' });
    assert.is(r.status, 302);
    const q = new URL(r.headers.get('location')!).searchParams;
    assert.is(q.get('client_id'), 'env-id');
    assert.is(q.get('redirect_uri'), 'https://gw.example.org/auth/github/callback');
    assert.match(r.headers.get('set-cookie')!, /; Secure$/, 'an https base URL makes the binding cookie Secure');
    const e = await errorOf(await fetch(`${other.url}/auth/google`, { redirect: 'manual' }));
    assert.equal([e.status, e.code], [503, 'provider_not_configured'], 'a client id without its secret is not configured');
  } finally {
    await other.cleanup();
  }
});

test.run();
