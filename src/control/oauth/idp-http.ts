import type { CustomFetch } from 'openid-client';
import { fetch, type RequestInit, type Response as UndiciResponse } from 'undici';
import { errors } from '../../errors/catalog.js';
import type { GatewayError } from '../../errors/gateway-error.js';
import type { Logger } from '../../lib/logger.js';
import type { ProxySettings } from '../../lib/proxy-settings.js';
import { ProxyDispatchers } from '../proxy-dispatchers.js';

/** Identity providers answer in well under a second; past this a sign-in fails with 503 rather than hang. */
export const IDP_TIMEOUT_MS = 10_000;

const USER_AGENT = 'gw-gateway (sign-in)';

export interface IdpAnswer {
  status: number;
  /** The parsed body, or null when it is not JSON. */
  json: unknown;
}

/**
 * Outbound calls to identity providers (GitHub's API here; discovery, JWKS, token and userinfo
 * for openid-client through `fetchFor`), each bounded by a timeout, through the same forward
 * proxy settings as provider traffic. A provider that cannot be reached becomes 503
 * `unavailable` (logged with the cause); what it answers is returned for the caller to judge.
 */
export class IdpHttp {
  readonly #log: Logger;
  readonly #timeoutMs: number;
  readonly #dispatchers: ProxyDispatchers;

  constructor(log: Logger, proxies: ProxySettings = {}, timeoutMs = IDP_TIMEOUT_MS) {
    this.#log = log;
    this.#dispatchers = new ProxyDispatchers(proxies);
    this.#timeoutMs = timeoutMs;
  }

  get(url: string, what: string, headers: Record<string, string> = {}): Promise<IdpAnswer> {
    return this.#call(url, 'GET', undefined, what, headers);
  }

  postForm(url: string, form: Record<string, string>, what: string, headers: Record<string, string> = {}): Promise<IdpAnswer> {
    return this.#call(url, 'POST', new URLSearchParams(form).toString(), what, {
      'content-type': 'application/x-www-form-urlencoded', ...headers,
    });
  }

  /** A provider's refusal (4xx/5xx or a body without what was asked for): logged in full, 400 bad_request to the client. */
  refused(providerId: string, step: string, ans: IdpAnswer): GatewayError {
    const body = asRecord(ans.json);
    this.#log.warn('identity provider refused', {
      provider: providerId, step, status: ans.status, error: body?.error, description: body?.error_description,
    });
    const why = body?.error !== undefined ? idpErrorCode(body.error) : `HTTP ${ans.status}`;
    return errors.badRequest(`Sign-in with '${providerId}' failed: ${step} was refused (${why})`);
  }

  /** A provider endpoint answering something unusable where the gateway needs it to start (discovery, keys). */
  broken(providerId: string, what: string, detail: Record<string, unknown>): GatewayError {
    this.#log.warn('identity provider misbehaves', { provider: providerId, what, ...detail });
    return errors.serviceUnavailable(`Sign-in with '${providerId}' is unavailable: its ${what} could not be read`);
  }

  /**
   * openid-client's customFetch for one provider: its requests take the same dispatchers, user
   * agent, timeout and 503 as the calls above; it reads and judges the answers itself.
   */
  fetchFor(providerId: string): CustomFetch {
    return async (url, init) => {
      const timeout = AbortSignal.timeout(this.#timeoutMs);
      const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      // openid-client knows a Response by its toStringTag, so undici's passes for the global one.
      return this.#send(url, { ...init, headers: { ...init.headers, 'user-agent': USER_AGENT }, signal }, providerId) as unknown as Response;
    };
  }

  async #call(url: string, method: 'GET' | 'POST', body: string | undefined, what: string, headers: Record<string, string>): Promise<IdpAnswer> {
    const res = await this.#send(url, {
      method, body, headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...headers }, signal: AbortSignal.timeout(this.#timeoutMs),
    }, what);
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw this.#unreachable(what, url, e);
    }
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: the caller reports what it expected.
    }
    return { status: res.status, json };
  }

  async #send(url: string, init: RequestInit, what: string): Promise<UndiciResponse> {
    try {
      return await fetch(url, { ...init, dispatcher: this.#dispatchers.for(url) });
    } catch (e) {
      throw this.#unreachable(what, url, e);
    }
  }

  #unreachable(what: string, url: string, e: unknown): GatewayError {
    const err = e as Error & { cause?: Error };
    this.#log.warn('identity provider unreachable', { what, url, err: String(err.cause?.message ?? err.message) });
    return errors.serviceUnavailable(`The sign-in provider did not answer (${what}); try again shortly`);
  }
}

/** A plain object from a JSON answer, else null. */
export function asRecord(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** A provider's `error` code, kept only when it looks like one (it ends up in our own message). */
export function idpErrorCode(v: unknown): string {
  return typeof v === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(v) ? v : 'an error';
}
