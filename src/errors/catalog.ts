import { GatewayError } from './gateway-error.js';

/**
 * The catalog of error codes (spec section 7). Handlers throw these constructors; nothing else
 * builds an envelope, so a code has one status and one type everywhere.
 */
const INVALID_REQUEST = 'invalid_request_error';
const AUTH = 'authentication_error';
const RATE = 'rate_limit_error';
const UPSTREAM = 'upstream_error';

export type ManagementCode =
  | 'duplicate_key_name' | 'trial_ceiling' | 'cap' | 'bad_email' | 'bad_role' | 'already_member' | 'already_invited'
  | 'last_owner' | 'personal_org' | 'member_cap' | 'team_cap' | 'duplicate_workspace' | 'bad_name' | 'already_answered'
  | 'bad_request' | 'bad_steps' | 'bad_model' | 'bad_readme' | 'unavailable';

/** What each guardrail detector finds, for the message that names it. */
const DETECTOR_NOUNS: Record<string, string> = {
  aadhaar: 'an Aadhaar number', pan: 'a PAN', gstin: 'a GSTIN', upi: 'a UPI id', ifsc: 'an IFSC', mobile: 'a mobile number',
  email: 'an email address', card: 'a payment card number', secret: 'an API key or secret',
};

export const errors = {
  badRequest: (message: string) => new GatewayError(400, INVALID_REQUEST, 'bad_request', message),
  notFound: (message = 'Not found') => new GatewayError(404, INVALID_REQUEST, 'not_found', message),
  methodNotAllowed: (method: string, path: string) =>
    new GatewayError(405, INVALID_REQUEST, 'method_not_allowed', `${method} is not allowed on ${path}`),
  payloadTooLarge: (limit: number, what = 'Request body') =>
    new GatewayError(413, INVALID_REQUEST, 'payload_too_large', `${what} exceeds the limit of ${limit} bytes`),
  invalidApiKey: (message = 'Missing, malformed, revoked or expired API key') =>
    new GatewayError(401, AUTH, 'invalid_api_key', message),
  /** GET /metrics with metrics.token set: the scrape's Bearer token is missing or not that one. */
  invalidMetricsToken: () =>
    new GatewayError(401, AUTH, 'invalid_metrics_token', 'GET /metrics needs Authorization: Bearer <metrics.token>'),
  modelNotFound: (model: string, why = 'is not in the catalog') =>
    new GatewayError(404, INVALID_REQUEST, 'model_not_found', `Model '${model}' ${why}`),
  /** A stored Responses API answer the key's org does not have (never stored, deleted, expired, or another org's). */
  responseNotFound: (id: string) =>
    new GatewayError(404, INVALID_REQUEST, 'response_not_found',
      `No stored response '${id}' in this organisation: it was stored with store: false, deleted, past its retention, or never existed`),
  /** A guardrail whose action is block found its detector's match in the request (or in the answer, when outputs are checked). */
  guardrailBlocked: (detector: string, where: 'request' | 'answer' = 'request') =>
    new GatewayError(400, INVALID_REQUEST, 'guardrail_blocked',
      `The ${where} was blocked by the '${detector}' guardrail: it contains ${DETECTOR_NOUNS[detector] ?? 'text that detector matches'}`),
  noRoute: (model: string, why: string) =>
    new GatewayError(400, INVALID_REQUEST, 'no_route', `No route for model '${model}' satisfies the request: ${why}`),
  allRoutesFailed: (lastError: string) =>
    new GatewayError(502, UPSTREAM, 'all_routes_failed',
      `Every eligible route failed; circuits recover in about 30 s. Last upstream error: ${lastError}`),
  insufficientCredits: () =>
    new GatewayError(402, 'billing_error', 'insufficient_credits', 'The organisation balance is zero or negative; top up to continue'),
  rateLimitExceeded: (retryAfterS: number, what: string) =>
    new GatewayError(429, RATE, 'rate_limit_exceeded', `Rate limit exceeded: ${what}`, { 'retry-after': String(retryAfterS) }),
  dailyLimitReached: (retryAfterS: number, limit: number, whose = '') =>
    new GatewayError(429, RATE, 'daily_limit_reached', `Daily request cap of ${limit}${whose} reached; resets at midnight IST`,
      { 'retry-after': String(retryAfterS) }),
  budgetExceeded: (retryAfterS: number, what: string) =>
    new GatewayError(429, RATE, 'budget_exceeded', `Monthly budget spent: ${what}; resets with the new IST month`,
      { 'retry-after': String(retryAfterS) }),
  /** An upstream client error (4xx) returned without failover, carrying the upstream's message. */
  upstreamClientError: (status: number, type: string, code: string, message: string) =>
    new GatewayError(status, type, code, message),
  /** A provider's 200 answer that cannot be read as a chat completion, so the client's format cannot be written from it. */
  unreadableAnswer: (why: string) =>
    new GatewayError(502, UPSTREAM, 'upstream_error', `The provider's answer could not be read: ${why}`),
  /** Sent as the last SSE event when an upstream stream breaks after bytes reached the client. */
  streamInterrupted: (why: string) =>
    new GatewayError(502, UPSTREAM, 'stream_interrupted', `The upstream stream was interrupted: ${why}`),
  /** The ledger writer is behind: refuse new work rather than drop usage records. */
  overloaded: () =>
    new GatewayError(503, 'server_error', 'overloaded', 'The gateway is catching up on accounting; retry shortly', { 'retry-after': '1' }),
  /** Every connection to the provider is busy and the wait for one passed its bound (upstream.connectionsPerOrigin, queue). */
  upstreamSaturated: (why: string) =>
    new GatewayError(503, 'server_error', 'overloaded', `The gateway's connections to the provider are all busy; retry shortly (${why})`,
      { 'retry-after': '2' }),
  /** Buffered upstream answers have reached upstream.maxBufferedBytes. */
  answersOverBudget: () =>
    new GatewayError(503, 'server_error', 'overloaded', 'The gateway is holding too many large upstream answers; retry shortly',
      { 'retry-after': '1' }),
  noSession: () => new GatewayError(401, AUTH, 'no_session', 'Sign in first: this needs a dashboard session'),
  forbidden: (message: string) => new GatewayError(403, 'permission_error', 'forbidden', message),
  providerNotConfigured: (provider: string) =>
    new GatewayError(503, 'server_error', 'provider_not_configured', `Sign-in with '${provider}' is not configured on this gateway`),
  /** The rule-breaking 400s of the management endpoints (spec 7), each with its own code. */
  rule: (code: ManagementCode, message: string) => new GatewayError(400, INVALID_REQUEST, code, message),
  /** Spec 7, BYOK. */
  badKey: (message: string) => new GatewayError(400, INVALID_REQUEST, 'bad_key', message),
  unknownProvider: (provider: string) =>
    new GatewayError(400, INVALID_REQUEST, 'unknown_provider', `No BYOK provider '${provider}': see GET /me/byok for the ones that take your key`),
  byokDisabled: () => new GatewayError(503, 'server_error', 'byok_disabled', 'Saved provider keys are turned off on this gateway (byok.enabled)'),
  /** Spec 7, Billing. */
  addressRequired: () => new GatewayError(400, INVALID_REQUEST, 'address_required',
    'Save a billing address first (POST /me/billing/address): it decides the GST place of supply'),
  badAddress: (field: string, why: string) => new GatewayError(400, INVALID_REQUEST, 'bad_address', `Invalid '${field}': ${why}`),
  promoInvalid: (code: string) =>
    new GatewayError(400, INVALID_REQUEST, 'promo_invalid', `Promo code '${code}' does not exist, has expired or has been used up`),
  promoRedeemed: (code: string) => new GatewayError(400, INVALID_REQUEST, 'promo_redeemed', `This organisation has already redeemed '${code}'`),
  billingDisabled: (what = 'Top-ups are not configured on this gateway (billing.payments)') =>
    new GatewayError(503, 'server_error', 'billing_disabled', what),
  serviceUnavailable: (message: string) => new GatewayError(503, 'server_error', 'unavailable', message),
  /** The shared limits store (Redis) cannot be reached and the gateway is set to fail closed (or its local allowance ran out). */
  limitsUnavailable: () => new GatewayError(503, 'server_error', 'unavailable',
    'The shared rate-limit and balance store cannot be reached; retry shortly', { 'retry-after': '1' }),
  internal: () => new GatewayError(500, 'server_error', 'internal_error', 'Internal error'),
} as const;
