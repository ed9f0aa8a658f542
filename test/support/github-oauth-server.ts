import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GithubUser {
  id: number;
  login: string;
  name: string | null;
  avatar_url: string;
  emails: { email: string; primary: boolean; verified: boolean; visibility?: string | null }[];
}

export interface GithubOAuthServer {
  url: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorize request signs in as (GitHub's own login page is not modelled). */
  signInAs(user: GithubUser): void;
  /** The next authorize request is turned down by the user: redirects back with error=access_denied. */
  denyNext(): void;
  /** Query of every authorize request and form of every token request, in order. */
  authorizeRequests: URLSearchParams[];
  tokenRequests: URLSearchParams[];
  close(): Promise<void>;
}

interface Grant {
  user: GithubUser;
  redirectUri: string;
  challenge: string;
  used: boolean;
}

/**
 * A GitHub-style OAuth 2 server on 127.0.0.1: /login/oauth/authorize redirects straight back with
 * a code, /login/oauth/access_token checks the client secret, the redirect_uri and the PKCE
 * verifier as GitHub does, and /user, /user/emails answer for the token's account.
 */
export async function startGithubOAuthServer(opts: { redirectUri: () => string }): Promise<GithubOAuthServer> {
  const clientId = 'gh-client-id';
  const clientSecret = 'gh-client-secret';
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, GithubUser>();
  let current: GithubUser | null = null;
  let deny = false;
  const authorizeRequests: URLSearchParams[] = [];
  const tokenRequests: URLSearchParams[] = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      authorizeRequests.push(q);
      if (q.get('client_id') !== clientId || q.get('redirect_uri') !== opts.redirectUri()) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('The redirect_uri is not associated with this application.');
        return;
      }
      const back = new URL(q.get('redirect_uri')!);
      if (deny) {
        deny = false;
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user has denied your application access.');
      } else {
        if (!current) throw new Error('github mock: call signInAs() first');
        const code = randomBytes(10).toString('hex');
        grants.set(code, { user: current, redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge') ?? '', used: false });
        back.searchParams.set('code', code);
      }
      back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const f = new URLSearchParams(raw);
      tokenRequests.push(f);
      // GitHub answers token errors with 200 and an error field.
      if (f.get('client_id') !== clientId || f.get('client_secret') !== clientSecret) return json(res, 200, { error: 'incorrect_client_credentials' });
      const g = grants.get(f.get('code') ?? '');
      if (!g || g.used) return json(res, 200, { error: 'bad_verification_code' });
      g.used = true;
      if (f.get('redirect_uri') !== g.redirectUri) return json(res, 200, { error: 'redirect_uri_mismatch' });
      const verifier = f.get('code_verifier') ?? '';
      if (!g.challenge || createHash('sha256').update(verifier).digest('base64url') !== g.challenge) {
        return json(res, 200, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      }
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, g.user);
      if (!(req.headers.accept ?? '').includes('application/json')) {
        res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' }).end(`access_token=${token}&scope=read%3Auser&token_type=bearer`);
        return;
      }
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    if (req.method === 'GET' && (url.pathname === '/user' || url.pathname === '/user/emails')) {
      if (!req.headers['user-agent']) return json(res, 403, { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header' });
      const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!user) return json(res, 401, { message: 'Bad credentials' });
      if (url.pathname === '/user/emails') return json(res, 200, user.emails);
      const { emails, ...rest } = user;
      return json(res, 200, { ...rest, email: emails.find((e) => e.primary)?.email ?? null, type: 'User' });
    }
    json(res, 404, { message: 'Not Found' });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, clientId, clientSecret, authorizeRequests, tokenRequests,
    signInAs: (u) => { current = u; },
    denyNext: () => { deny = true; },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
