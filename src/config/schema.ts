import { Type, type Static } from '@sinclair/typebox';

const ProviderOverride = Type.Object({
  baseUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  apiKey: Type.Optional(Type.String({ minLength: 1 })),
  enabled: Type.Optional(Type.Boolean()),
  /** Where this deployment's copy runs (a self-hosted server in India: "in", so data_policy india_only may use it). */
  residency: Type.Optional(Type.String({ minLength: 2 })),
}, { additionalProperties: false });

const OidcProvider = Type.Object({
  clientId: Type.Optional(Type.String({ minLength: 1 })),
  clientSecret: Type.Optional(Type.String({ minLength: 1 })),
  /** OpenID issuer; endpoints come from its /.well-known/openid-configuration. */
  issuer: Type.String({ pattern: '^https?://' }),
  /** Plain http to this provider (an internal issuer without TLS); a loopback issuer needs no flag. */
  allowHttp: Type.Optional(Type.Boolean()),
  scope: Type.String({ default: 'openid email profile' }),
  /** What the dashboard's sign-in button says ("Sign in with <name>"); the id when absent. */
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  // The object default is never used (record entries exist or not): TypeBox's Value.Default only
  // fills the defaults inside a Record's values when the value schema itself has one.
}, { additionalProperties: false, default: {} });

const OAuth2Provider = Type.Object({
  clientId: Type.Optional(Type.String({ minLength: 1 })),
  clientSecret: Type.Optional(Type.String({ minLength: 1 })),
  authorizeUrl: Type.String({ pattern: '^https?://', default: 'https://github.com/login/oauth/authorize' }),
  tokenUrl: Type.String({ pattern: '^https?://', default: 'https://github.com/login/oauth/access_token' }),
  /** API base for /user and /user/emails. */
  apiUrl: Type.String({ pattern: '^https?://', default: 'https://api.github.com' }),
  scope: Type.String({ default: 'read:user user:email' }),
}, { additionalProperties: false, default: {} });

/** The whole configuration. Every field has a default, so no file is needed to start. */
export const ConfigSchema = Type.Object({
  host: Type.String({ default: '127.0.0.1' }),
  /** Public URL of this gateway: OAuth callbacks, login links, the Origin check and cookie Secure flag derive from it. */
  baseUrl: Type.Optional(Type.String({ pattern: '^https?://[^/]+$' })),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  dbPath: Type.String({ minLength: 1, default: './data/gateway.db' }),
  /**
   * Where state lives when several instances serve together (docs/scale-out.md). Unset: the
   * SQLite file at dbPath, one gateway process per file.
   */
  store: Type.Object({
    /** A postgres:// URL (GW_STORE); unset: SQLite. */
    url: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
    /** Connections per instance. */
    poolSize: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
    /** How long inference serves keys already known while PostgreSQL does not answer; past it, a key not cached is refused 503. */
    keyGraceMs: Type.Integer({ minimum: 0, default: 300_000 }),
  }, { additionalProperties: false, default: {} }),
  /** Shared limits, budgets, balances' holds and the change channel (GW_REDIS); unset: in-process. */
  redis: Type.Object({
    /** A redis:// or rediss:// URL (Redis or Valkey). */
    url: Type.Optional(Type.String({ pattern: '^rediss?://' })),
    /**
     * Redis unreachable: `fail_closed` answers inference 503 unavailable; `local` serves on this
     * instance's own in-process limits for at most localForMs (limits then hold per instance, so N
     * instances admit up to N times a limit), then fails closed.
     */
    onUnavailable: Type.Union([Type.Literal('fail_closed'), Type.Literal('local')], { default: 'fail_closed' }),
    localForMs: Type.Integer({ minimum: 0, default: 60_000 }),
    /**
     * Local leases (docs/scale-out.md): slots of a key's minute each instance claims at once, so
     * most requests of a busy key are admitted without a round trip to Redis; 0 turns them off.
     */
    leaseSlots: Type.Integer({ minimum: 0, maximum: 1000, default: 16 }),
    /** How long leased slots may be used before the unused go back. */
    leaseMs: Type.Integer({ minimum: 50, maximum: 10_000, default: 1000 }),
    /** Money leased at once, in maximum costs of the request that asks. */
    leaseRequests: Type.Integer({ minimum: 1, maximum: 1000, default: 16 }),
  }, { additionalProperties: false, default: {} }),
  /** Replaces the shipped catalog.json (self-hosters describing their own models). */
  catalogFile: Type.Optional(Type.String({ minLength: 1 })),
  bodyLimitBytes: Type.Integer({ minimum: 1024, default: 4 * 1024 * 1024 }),
  /**
   * Refuse requests with more than one Content-Length (400, connection closed). uWS shows repeated
   * headers only by a callback per header: about 7k instructions a request. Off only behind a proxy
   * that refuses them itself (nginx, HAProxy, Envoy, Caddy do).
   */
  rejectRepeatedContentLength: Type.Boolean({ default: true }),
  logLevel: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')], { default: 'info' }),
  keyCache: Type.Object({
    ttlMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 60_000 }),
    max: Type.Integer({ minimum: 1, default: 100_000 }),
  }, { additionalProperties: false, default: {} }),
  upstream: Type.Object({
    connectTimeoutMs: Type.Integer({ minimum: 1, default: 5_000 }),
    /** Until the upstream's response headers (non-streaming answers arrive whole, so this is long). */
    headersTimeoutMs: Type.Integer({ minimum: 1, default: 120_000 }),
    /** Longest silence between two body chunks. */
    bodyTimeoutMs: Type.Integer({ minimum: 1, default: 120_000 }),
    /** Most sockets to one provider origin, so most requests in flight to it (a stream holds one for its
     * whole length). 0: derived at start from the process's open-file limit and memory (docs/configuration.md). */
    connectionsPerOrigin: Type.Integer({ minimum: 0, default: 0 }),
    /** Most requests waiting for a socket to one origin; one more fails over at once, or gets 503 overloaded.
     * 0: as many as connectionsPerOrigin. */
    maxQueuedPerOrigin: Type.Integer({ minimum: 0, default: 0 }),
    /** Longest wait for a socket; past it the request fails over, or gets 503 overloaded with retry-after. */
    queueTimeoutMs: Type.Integer({ minimum: 1, default: 5_000 }),
    /** How long an idle keep-alive socket is kept when the upstream advertises no `Keep-Alive: timeout`. */
    idleTimeoutMs: Type.Integer({ minimum: 1, default: 30_000 }),
    /** HTTP/2 to https providers whose TLS offers it: for streamed requests (`streams`), for every request
     * (`all`), or never (`off`). Elsewhere, and to providers that offer only HTTP/1.1, requests use the
     * keep-alive HTTP/1.1 pool. */
    http2: Type.Union([Type.Literal('streams'), Type.Literal('all'), Type.Literal('off')], { default: 'streams' }),
    /** Largest non-streaming answer the gateway buffers; a provider that sends more fails the route
     * instead of exhausting memory. 128 MiB holds 2,048 float embeddings of 3,072 dimensions. */
    maxResponseBytes: Type.Integer({ minimum: 1_024, default: 128 * 1024 * 1024 }),
    /** Most bytes buffered at once across all such answers; past it a request gets 503 overloaded.
     * At least maxResponseBytes. */
    maxBufferedBytes: Type.Integer({ minimum: 1_024, default: 1024 * 1024 * 1024 }),
    /** Forward proxies (http, https, socks5, socks5h URLs) for provider and sign-in connections; unset in
     * the file, HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY (or their lowercase forms) apply. */
    httpProxy: Type.Optional(Type.String()),
    httpsProxy: Type.Optional(Type.String()),
    /** For both schemes when their own setting is absent (ALL_PROXY); e.g. socks5h://127.0.0.1:1080. */
    allProxy: Type.Optional(Type.String()),
    noProxy: Type.Optional(Type.String()),
  }, { additionalProperties: false, default: {} }),
  breaker: Type.Object({
    resetTimeoutMs: Type.Integer({ minimum: 10, default: 30_000 }),
    errorThresholdPercentage: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
    volumeThreshold: Type.Integer({ minimum: 1, default: 5 }),
    rollingWindowMs: Type.Integer({ minimum: 100, default: 10_000 }),
  }, { additionalProperties: false, default: {} }),
  limits: Type.Object({
    /** The gateway cap per key (spec 8: 120/min); an operator setting so a load test can lift it. */
    gatewayRpm: Type.Integer({ minimum: 1, default: 120 }),
    /** Unauthenticated public reads, per client IP. */
    publicRpmPerIp: Type.Integer({ minimum: 1, default: 120 }),
  }, { additionalProperties: false, default: {} }),
  ledger: Type.Object({
    batchSize: Type.Integer({ minimum: 1, maximum: 100_000, default: 1_000 }),
    flushMs: Type.Integer({ minimum: 1, maximum: 10_000, default: 100 }),
    maxInFlight: Type.Integer({ minimum: 1, default: 64 }),
    /**
     * On PostgreSQL, the bound of the spool file batches wait in while the server is away: when it
     * is reached, inference answers 503 overloaded (no row is ever dropped) until a replay makes room.
     */
    maxSpoolMb: Type.Integer({ minimum: 1, default: 1_024 }),
  }, { additionalProperties: false, default: {} }),
  /** Saved provider keys (spec 4.5). */
  byok: Type.Object({
    /** false: /me/byok answers 503 byok_disabled and no saved key is used. */
    enabled: Type.Boolean({ default: true }),
    /** Where the master key lives when GW_MASTER_KEY is unset; default master.key beside the database. */
    masterKeyFile: Type.Optional(Type.String({ minLength: 1 })),
    /** Time allowed for the live check of a key against its provider. */
    verifyTimeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
  }, { additionalProperties: false, default: {} }),
  /** Reliability monitoring of collections (spec 4.10). */
  monitoring: Type.Object({
    /** How often monitored collections are canaried. */
    intervalMs: Type.Integer({ minimum: 1_000, default: 300_000 }),
    canaryTimeoutMs: Type.Integer({ minimum: 100, default: 15_000 }),
    /** true lets alert webhooks point at this host and private networks. */
    allowInternalWebhooks: Type.Boolean({ default: false }),
    maxAlertsPerCollection: Type.Integer({ minimum: 1, default: 10 }),
    /** Canaries cost the platform: a collection is checked on request at most this often (429 otherwise). */
    minCheckIntervalMs: Type.Integer({ minimum: 0, default: 10_000 }),
    /** A failed delivery is tried again after this, then 5 and 25 times this (three retries). */
    retryBaseMs: Type.Integer({ minimum: 10, default: 1_000 }),
  }, { additionalProperties: false, default: {} }),
  /** Mail relay for email alerts; without a host, email alerts are refused (400 unavailable). */
  smtp: Type.Object({
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 25 }),
    /** TLS from the first byte (port 465). */
    secure: Type.Boolean({ default: false }),
    /** On a plain connection: upgrade when offered (auto), insist (required), or never (off). */
    starttls: Type.Union([Type.Literal('auto'), Type.Literal('required'), Type.Literal('off')], { default: 'auto' }),
    from: Type.String({ minLength: 3, default: 'gw@localhost' }),
    user: Type.Optional(Type.String({ minLength: 1 })),
    password: Type.Optional(Type.String()),
    /** How long the relay may stay silent at any step of a delivery. */
    timeoutMs: Type.Integer({ minimum: 100, default: 15_000 }),
  }, { additionalProperties: false, default: {} }),
  /** Endpoints an org registers (spec 4.9). */
  customEndpoints: Type.Object({
    /** true lets them point at this host and private networks (a self-hoster's LAN); off, such URLs are refused. */
    allowInternalAddresses: Type.Boolean({ default: false }),
    /** Time allowed for each call of a compliance test. */
    testTimeoutMs: Type.Integer({ minimum: 100, default: 15_000 }),
    maxPerOrg: Type.Integer({ minimum: 1, default: 10 }),
  }, { additionalProperties: false, default: {} }),
  audio: Type.Object({
    /** Largest audio file POST /v1/audio/transcriptions takes (spec 4.1: 25 MB); the form around it may add 1 MiB. */
    maxFileBytes: Type.Integer({ minimum: 1_024, default: 25 * 1024 * 1024 }),
  }, { additionalProperties: false, default: {} }),
  /** The web dashboard, built into dist/web by `npm run build` and served at /. */
  dashboard: Type.Object({
    enabled: Type.Boolean({ default: true }),
  }, { additionalProperties: false, default: {} }),
  /** Provider prompt caching (docs/cache.md). */
  promptCache: Type.Object({
    /** Mark long stable prefixes (tools, system prompt) on every request to a provider that needs markers, as `cache: "auto"` does for one. */
    auto: Type.Boolean({ default: false }),
  }, { additionalProperties: false, default: {} }),
  /** The exact-match response cache (docs/cache.md). */
  responseCache: Type.Object({
    /**
     * For requests that send no x-gw-cache header: `off`, `on` (embeddings and temperature-0
     * generations) or `always` (every answer, sampled ones too).
     */
    mode: Type.Union([Type.Literal('off'), Type.Literal('on'), Type.Literal('always')], { default: 'off' }),
    ttlSeconds: Type.Integer({ minimum: 1, maximum: 30 * 86_400, default: 3_600 }),
    /** Answers larger than this are served and not stored. */
    maxEntryKb: Type.Integer({ minimum: 1, maximum: 65_536, default: 1_024 }),
    /** One box (SQLite): the cache's bound, the answers closest to expiring evicted first. On Redis, its maxmemory bounds it. */
    maxTotalMb: Type.Integer({ minimum: 1, default: 256 }),
    /** A hit is billed this percentage of what its answer cost when first served; 0: hits are free. */
    hitCostPercent: Type.Number({ minimum: 0, maximum: 100, default: 0 }),
  }, { additionalProperties: false, default: {} }),
  /** OpenTelemetry traces over OTLP/HTTP (docs/operations.md#traces); off until a collector URL is set. */
  tracing: Type.Object({
    /** The collector's base URL (GW_OTLP_URL), e.g. http://otel-collector:4318: spans go to <url>/v1/traces. */
    otlpUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
    serviceName: Type.String({ minLength: 1, default: 'gw-gateway' }),
    /** true: the request's messages and the answer's text go on the request span (gen_ai.input.messages, gen_ai.output.messages). */
    captureContent: Type.Boolean({ default: false }),
  }, { additionalProperties: false, default: {} }),
  /** GET /metrics, Prometheus text format (docs/operations.md). */
  metrics: Type.Object({
    /** false: no /metrics route (404) and nothing measured on the request path. */
    enabled: Type.Boolean({ default: true }),
    /**
     * Bearer token a scrape must send (GW_METRICS_TOKEN); unset: /metrics answers loopback clients
     * only, which behind a reverse proxy on the same host is everyone: set a token there.
     */
    token: Type.Optional(Type.String({ minLength: 16 })),
  }, { additionalProperties: false, default: {} }),
  /** Stored Responses API answers (POST /v1/responses with store, the default): kept this many days from creation. */
  responses: Type.Object({
    retentionDays: Type.Integer({ minimum: 1, maximum: 3_650, default: 30 }),
  }, { additionalProperties: false, default: {} }),
  billing: Type.Object({
    /** Output tokens assumed for a request's cost hold when it gives no max_tokens. */
    reserveOutputTokens: Type.Integer({ minimum: 1, default: 4_096 }),
    /** Top-up bounds in whole ₹ per order (spec 8, beta). */
    minTopupInr: Type.Integer({ minimum: 1, default: 100 }),
    maxTopupInr: Type.Integer({ minimum: 1, default: 1_000 }),
    /** Orders an org may create per rolling hour: each is a call on the operator's payment account. */
    maxOrdersPerHour: Type.Integer({ minimum: 1, default: 20 }),
    /**
     * The payment provider (a Razorpay-style orders API). Top-ups are off (503 billing_disabled)
     * until keyId, keySecret and seller.state are set; the webhook also needs webhookSecret.
     */
    payments: Type.Object({
      apiBaseUrl: Type.String({ minLength: 1, default: 'https://api.razorpay.com/v1' }),
      /**
       * The provider's hosted checkout, which the dashboard's top-up form posts to (key_id,
       * order_id, callback_url…); it posts the signed payment back to /billing/return.
       */
      checkoutUrl: Type.String({ pattern: '^https?://', default: 'https://api.razorpay.com/v1/checkout/embedded' }),
      keyId: Type.Optional(Type.String({ minLength: 1 })),
      keySecret: Type.Optional(Type.String({ minLength: 1 })),
      webhookSecret: Type.Optional(Type.String({ minLength: 1 })),
      timeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
    }, { additionalProperties: false, default: {} }),
    /** The operator, as printed on receipts; its state decides CGST+SGST or IGST. */
    seller: Type.Object({
      name: Type.String({ minLength: 1, default: 'Inference gateway operator' }),
      /** GST state code ('29') or name ('Karnataka'). */
      state: Type.Optional(Type.String({ minLength: 1 })),
      gstin: Type.Optional(Type.String({ minLength: 15, maxLength: 15 })),
      address: Type.Optional(Type.String({ minLength: 1 })),
      /** The services accounting code printed against the credit line (e.g. 998315). */
      sac: Type.Optional(Type.String({ pattern: '^\\d{6}$' })),
    }, { additionalProperties: false, default: {} }),
    /** Postal PIN lookup for address autofill; answers in the api.postalpincode.in shape. */
    pincodeLookupUrl: Type.String({ minLength: 1, default: 'https://api.postalpincode.in/pincode/' }),
    /** How often open orders of the last 3 days are checked with the payment provider (a payment nobody reported). */
    reconcileMs: Type.Integer({ minimum: 100, default: 300_000 }),
    /** How often balances are compared with their low-balance thresholds (mail goes out once per crossing). */
    lowBalanceCheckMs: Type.Integer({ minimum: 100, default: 60_000 }),
  }, { additionalProperties: false, default: {} }),
  /** GET /v1/pricing/compare: another router's public model list, its USD prices converted to INR. */
  pricingCompare: Type.Object({
    /** An OpenRouter-style `GET /models` list (`data[].id`, `data[].pricing.prompt|completion` in USD a token); '' turns it off. */
    sourceUrl: Type.String({ default: 'https://openrouter.ai/api/v1/models' }),
    /** ₹ per US$, the rate the catalog's own prices were set at. */
    usdInr: Type.Number({ exclusiveMinimum: 0, default: 88 }),
    refreshMs: Type.Integer({ minimum: 1_000, default: 3_600_000 }),
    timeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
    /** Largest list accepted from the source. */
    maxBytes: Type.Integer({ minimum: 1_024, default: 16 * 1024 * 1024 }),
  }, { additionalProperties: false, default: {} }),
  /** How often the gateway reads changes made by other processes (the CLI) to keys, budgets and credits. */
  changePollMs: Type.Integer({ minimum: 50, maximum: 60_000, default: 1_000 }),
  auth: Type.Object({
    sessionTtlHours: Type.Integer({ minimum: 1, maximum: 24 * 365, default: 24 * 30 }),
    loginLinkTtlMinutes: Type.Integer({ minimum: 1, maximum: 24 * 60, default: 15 }),
    google: Type.Object({
      clientId: Type.Optional(Type.String({ minLength: 1 })),
      clientSecret: Type.Optional(Type.String({ minLength: 1 })),
      issuer: Type.String({ pattern: '^https?://', default: 'https://accounts.google.com' }),
      scope: Type.String({ default: 'openid email profile' }),
    }, { additionalProperties: false, default: {} }),
    github: OAuth2Provider,
    /** Further OpenID providers by id (any issuer: Keycloak, Auth0, Okta, Dex…), signed in at /auth/<id>. */
    oidc: Type.Record(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$' }), OidcProvider, { default: {} }),
  }, { additionalProperties: false, default: {} }),
  /**
   * Guardrails (docs/guardrails.md): the policy for requests whose request, key and org give
   * none, in the header's text form ('redact=aadhaar,pan;block=secret;outputs'); none by default.
   */
  guardrails: Type.Object({
    default: Type.Optional(Type.String({ minLength: 1 })),
  }, { additionalProperties: false, default: {} }),
  orgs: Type.Object({
    /** Credit given to a new personal org (₹); positive makes its keys standard from the start. */
    signupCreditInr: Type.Number({ minimum: 0, default: 0 }),
    maxTeamOrgsPerUser: Type.Integer({ minimum: 0, default: 5 }),
    maxMembersPerOrg: Type.Integer({ minimum: 1, default: 25 }),
    maxActiveKeysPerOrg: Type.Integer({ minimum: 1, default: 5 }),
    /** Collections an org may keep (spec 4.8: 400 cap past it). */
    maxCollectionsPerOrg: Type.Integer({ minimum: 1, default: 50 }),
  }, { additionalProperties: false, default: {} }),
  providers: Type.Record(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$' }), ProviderOverride, { default: {} }),
}, { additionalProperties: false });

export type Config = Static<typeof ConfigSchema>;
export type ProviderOverrideConfig = Static<typeof ProviderOverride>;
