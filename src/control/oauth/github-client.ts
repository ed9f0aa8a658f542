import { errors } from '../../errors/catalog.js';
import { asRecord, type IdpHttp } from './idp-http.js';
import { toProfile, type AuthorizeRequest, type FinishRequest, type Profile, type SignInProvider } from './sign-in-provider.js';

export interface GithubSettings {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  apiUrl: string;
  scope: string;
}

/** GitHub's REST API wants a version and a User-Agent on every call. */
const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };

/**
 * GitHub (plain OAuth 2, no id_token): the code is exchanged with PKCE and the client secret, then
 * the account is read from `/user`, its email from `/user/emails` (the primary verified one).
 */
export class GithubClient implements SignInProvider {
  readonly id = 'github';
  readonly usesNonce = false;
  readonly #s: GithubSettings;
  readonly #http: IdpHttp;
  readonly #api: string;

  constructor(settings: GithubSettings, http: IdpHttp) {
    this.#s = settings;
    this.#http = http;
    this.#api = settings.apiUrl.replace(/\/+$/, '');
  }

  async authorizeUrl(r: AuthorizeRequest): Promise<string> {
    const url = new URL(this.#s.authorizeUrl);
    const params: Record<string, string> = {
      client_id: this.#s.clientId, redirect_uri: r.redirectUri, scope: this.#s.scope, state: r.state,
      code_challenge: r.codeChallenge, code_challenge_method: 'S256', response_type: 'code',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }

  async finish(r: FinishRequest): Promise<Profile> {
    const ans = await this.#http.postForm(this.#s.tokenUrl, {
      grant_type: 'authorization_code', client_id: this.#s.clientId, client_secret: this.#s.clientSecret,
      code: r.code, redirect_uri: r.redirectUri, code_verifier: r.codeVerifier,
    }, 'github token endpoint');
    // GitHub reports a bad code with 200 and an `error` field.
    const tokens = asRecord(ans.json);
    const token = tokens?.access_token;
    if (ans.status !== 200 || typeof token !== 'string' || token === '') throw this.#http.refused(this.id, 'the token exchange', ans);

    const auth = { ...API_HEADERS, authorization: `Bearer ${token}` };
    const [userAns, emailsAns] = await Promise.all([
      this.#http.get(`${this.#api}/user`, 'github /user', auth),
      this.#http.get(`${this.#api}/user/emails`, 'github /user/emails', auth),
    ]);
    const user = asRecord(userAns.json);
    if (userAns.status !== 200 || !user) throw this.#http.refused(this.id, 'reading the GitHub account', userAns);
    if (emailsAns.status !== 200 || !Array.isArray(emailsAns.json)) throw this.#http.refused(this.id, 'reading the account emails', emailsAns);
    const primary = emailsAns.json.map(asRecord).find((e) => e?.primary === true && e.verified === true);
    if (!primary) throw errors.badRequest("Sign-in with 'github' failed: the GitHub account has no verified primary email address");
    const name = typeof user.name === 'string' && user.name.trim() ? user.name : user.login;
    return toProfile(this.id, { subject: user.id, email: primary.email, name, picture: user.avatar_url });
  }
}
