import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OidcAccount {
  email: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

export interface OidcClientSpec {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** RS256 by default; anything else the gateway must refuse (it accepts RS256 and ES256 only). */
  id_token_signed_response_alg?: 'RS256' | 'ES256' | 'PS256';
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcServer {
  issuer: string;
  /** Accounts by login id (also their `sub`); the devInteractions login form takes the id. */
  accounts: Map<string, OidcAccount>;
  /** Builds the provider with these clients: the gateway's redirect_uri is known only once it listens. */
  configure(clients: OidcClientSpec[]): Promise<void>;
  close(): Promise<void>;
}

// The package ships no types; this is the part of its API used here.
interface OidcProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
}
type OidcProviderCtor = new (issuer: string, config: Record<string, unknown>) => OidcProviderInstance;

/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1: discovery, JWKS (one RSA and
 * one P-256 key), PKCE required, the devInteractions login and consent pages, accounts from a map.
 * claimsInIdToken puts email and profile claims in the id_token (as Google does); without it they
 * come only from the userinfo endpoint (OIDC Core 5.4, as Okta and Keycloak may do).
 */
export async function startOidcServer(opts: { claimsInIdToken?: boolean } = {}): Promise<OidcServer> {
  const accounts = new Map<string, OidcAccount>();
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end('not configured yet');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const moduleName = 'oidc-provider';
  const { default: Provider } = (await import(moduleName)) as { default: OidcProviderCtor };

  return {
    issuer,
    accounts,
    async configure(clients) {
      const provider = new Provider(issuer, {
        clients: clients.map((c) => ({ grant_types: ['authorization_code'], response_types: ['code'], ...c })),
        jwks: { keys: [{ ...rsa, kid: 'rsa-1', use: 'sig' }, { ...ec, kid: 'ec-1', use: 'sig' }] },
        cookies: { keys: ['oidc-test-cookie-key'] },
        pkce: { required: () => true },
        conformIdTokenClaims: !opts.claimsInIdToken,
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
        features: { devInteractions: { enabled: true } },
        ttl: { AuthorizationCode: 60, AccessToken: 600, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
        findAccount: (_ctx: unknown, id: string) => {
          const a = accounts.get(id);
          return a ? { accountId: id, claims: () => ({ sub: id, ...a }) } : undefined;
        },
      });
      handler = provider.callback();
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
