import { errors } from '../errors/catalog.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { scrubSecrets } from '../lib/secret-scrub.js';
import { RouteFailure } from './route-failure.js';

/** Statuses that say "this route cannot serve now", not "this request is wrong": fail over. */
const ROUTE_LEVEL_4XX = new Set([404, 408, 425, 429]);

/**
 * Classifies an upstream error response. Route problems (5xx, 429, timeouts, the platform's
 * credential refused) become RouteFailures and fail over; the caller's own mistakes (400, 413,
 * 422…, or 401/403 on the caller's own upstream_key) come back as they are, without failover.
 * `secret` is the credential the call carried: a provider may echo the Authorization header it
 * received ("Invalid API key: Bearer sk-…"), and this text reaches the client (as itself or in
 * all_routes_failed), so it is scrubbed here, where it enters the gateway.
 */
export function classifyUpstreamError(status: number, body: Buffer, callerKey: boolean, secret: string | null): RouteFailure | GatewayError {
  const { message, type, code } = readUpstreamError(body, secret);
  const text = `upstream ${status}: ${message}`;
  if (status >= 500) return new RouteFailure('upstream_error', text, status);
  // Only a forward proxy sends 407: the gateway's own proxy settings are wrong, not the request.
  if (status === 407) return new RouteFailure('proxy_auth', `${text} (the upstream proxy refused the gateway's credentials)`, status);
  if ((status === 401 || status === 403) && !callerKey) return new RouteFailure('upstream_auth', `${text} (platform credential refused)`, status);
  if (ROUTE_LEVEL_4XX.has(status)) return new RouteFailure(status === 429 ? 'upstream_rate_limited' : 'upstream_error', text, status);
  return errors.upstreamClientError(status, type ?? 'invalid_request_error', code ?? 'upstream_error', message);
}

const CODE_RE = /^[a-z0-9_.-]{1,64}$/;

function readUpstreamError(body: Buffer, secret: string | null): { message: string; type: string | null; code: string | null } {
  const text = body.toString('utf8');
  try {
    const j = JSON.parse(text);
    const e = j?.error ?? j;
    const message = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : typeof j?.message === 'string' ? j.message : text;
    // Scrubbed before it is cut: a secret cut in half would no longer be found whole.
    return { message: scrubSecrets(message, secret).slice(0, 500), type: token(e?.type, secret), code: token(e?.code, secret) };
  } catch {
    return { message: scrubSecrets(text, secret).slice(0, 300) || '(empty body)', type: null, code: null };
  }
}

/** An upstream type or code kept as the client's (and the ledger's) code: a short token that carries no secret. */
function token(v: unknown, secret: string | null): string | null {
  return typeof v === 'string' && CODE_RE.test(v) && scrubSecrets(v, secret) === v ? v : null;
}
