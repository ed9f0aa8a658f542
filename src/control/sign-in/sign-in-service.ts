import { calculatePKCECodeChallenge, randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import type { OpenedSession, SignIn, SignInStore } from '../../domain/stores/sign-in-store.js';
import { errors } from '../../errors/catalog.js';
import type { Clock } from '../../lib/clock.js';
import type { SignInProvider } from '../oauth/sign-in-provider.js';
import { newLoginLinkToken } from './login-links.js';

/** How long a started sign-in may take at the provider before its state is refused. */
export const STATE_TTL_MS = 10 * 60_000;

export interface SignInServiceDeps {
  store: SignInStore;
  clock: Clock;
  /** Configured providers by id; null: a known provider without configuration. */
  providers: ReadonlyMap<string, SignInProvider | null>;
  /** The gateway's public origin, known once it listens. */
  baseUrl(): string;
  signupCreditMicros: number;
  sessionTtlMs: number;
  loginLinkTtlMs: number;
}

/**
 * Signing in (spec 4.2): an authorization-code sign-in with PKCE at an identity provider, bound
 * to one state used once, or a one-time login link; either opens a session in the user's personal
 * org, creating user and org (with the signup credit) the first time.
 */
export class SignInService {
  readonly #d: SignInServiceDeps;

  constructor(deps: SignInServiceDeps) {
    this.#d = deps;
  }

  /** The ids of the providers configured on this gateway. */
  configuredProviders(): string[] {
    return [...this.#d.providers].filter(([, p]) => p !== null).map(([id]) => id);
  }

  /** Starts a sign-in: where to send the browser, and the state that binds the callback to it. */
  async start(providerId: string, returnTo: string | null): Promise<{ location: string; state: string }> {
    const p = this.#provider(providerId);
    const now = this.#d.clock.now();
    const state = randomState();
    const verifier = randomPKCECodeVerifier();
    const nonce = p.usesNonce ? randomNonce() : null;
    const location = await p.authorizeUrl({ redirectUri: this.#redirectUri(p.id), state, codeChallenge: await calculatePKCECodeChallenge(verifier), nonce });
    await this.#d.store.saveState({
      state, provider: p.id, code_verifier: verifier, nonce, return_to: returnTo, created_at: now, expires_at: now + STATE_TTL_MS,
    });
    return { location, state };
  }

  /**
   * Ends a sign-in at its callback: the state must be known, unexpired, of this provider and bound
   * to this browser (`boundState`, the binding cookie's value); the code is exchanged and the user
   * signed in.
   */
  async finish(providerId: string, q: URLSearchParams, boundState: string): Promise<OpenedSession & { returnTo: string | null }> {
    const d = this.#d;
    const p = this.#provider(providerId);
    const state = q.get('state');
    const row = state ? await d.store.takeState(state) : undefined;
    const refused = q.get('error');
    if (refused !== null) {
      throw errors.badRequest(`Sign-in with '${p.id}' was not completed: the provider answered ${/^[a-z_]{1,64}$/.test(refused) ? refused : 'an error'}`);
    }
    if (!row) throw errors.badRequest('This sign-in is unknown, expired or already used; start again');
    if (row.provider !== p.id) throw errors.badRequest(`This sign-in was started with '${row.provider}', not '${p.id}'; start again`);
    if (row.expires_at <= d.clock.now()) throw errors.badRequest('This sign-in has expired; start again');
    if (boundState !== row.state) throw errors.badRequest('This sign-in was started in another browser; start again from this one');
    const code = q.get('code');
    if (!code) throw errors.badRequest(`Sign-in with '${p.id}' returned no authorization code`);
    const profile = await p.finish({
      redirectUri: this.#redirectUri(p.id), callbackParams: q, state: row.state, code, codeVerifier: row.code_verifier, nonce: row.nonce,
    });
    const opened = await this.#open({ email: profile.email, name: profile.name, avatarUrl: profile.avatarUrl, identity: { provider: p.id, subject: profile.subject } });
    return { ...opened, returnTo: row.return_to };
  }

  /** Signs in with a one-time login link (from `gw login-link`). */
  async useLoginLink(token: string): Promise<OpenedSession> {
    const email = token ? await this.#d.store.useLoginLink(token, this.#d.clock.now()) : null;
    if (!email) throw errors.forbidden('This login link is unknown, expired or already used; ask for a new one');
    return this.#open({ email });
  }

  /** A one-time sign-in URL for an operator without an identity provider. */
  async createLoginLink(email: string): Promise<{ url: string; expiresAt: number }> {
    const now = this.#d.clock.now();
    const token = newLoginLinkToken();
    const expiresAt = now + this.#d.loginLinkTtlMs;
    await this.#d.store.saveLoginLink(token, email.toLowerCase(), now, expiresAt);
    return { url: `${this.#d.baseUrl()}/auth/link?token=${token}`, expiresAt };
  }

  #open(s: Omit<SignIn, 'signupCreditMicros'>): Promise<OpenedSession> {
    return this.#d.store.signIn({ ...s, signupCreditMicros: this.#d.signupCreditMicros }, this.#d.sessionTtlMs, this.#d.clock.now());
  }

  #provider(id: string): SignInProvider {
    const p = this.#d.providers.get(id);
    if (p === undefined) throw errors.notFound(`No sign-in provider '${id}'`);
    if (p === null) throw errors.providerNotConfigured(id);
    return p;
  }

  // baseUrl is known only once the server listens: read it per request.
  #redirectUri(id: string): string {
    return `${this.#d.baseUrl()}/auth/${id}/callback`;
  }
}
