-- The one source of the gateway's SQLite schema. Sections run in order; each "-- migration: N"
-- section runs once, inside a transaction, when the database's user_version is below N.
-- Add a change as a new section at the end; never edit a section that has shipped.
-- Money is integer micro-rupees (1 INR = 1,000,000); times are Unix milliseconds (UTC).

-- migration: 1
CREATE TABLE orgs (
  id              TEXT PRIMARY KEY,
  name            TEXT NOT NULL,
  personal        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  -- cached: always equals SUM(money_events.amount_micros) - SUM(usage.cost_micros) for the org
  balance_micros  INTEGER NOT NULL DEFAULT 0,
  -- set by the first payment or credit; makes new keys standard tier
  funded_at       INTEGER
);

CREATE TABLE users (
  id          TEXT PRIMARY KEY,
  email       TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name        TEXT,
  avatar_url  TEXT,
  created_at  INTEGER NOT NULL
);

CREATE TABLE memberships (
  org_id      TEXT NOT NULL REFERENCES orgs(id),
  user_id     TEXT NOT NULL REFERENCES users(id),
  role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships(user_id);

CREATE TABLE workspaces (
  id                     TEXT PRIMARY KEY,
  org_id                 TEXT NOT NULL REFERENCES orgs(id),
  name                   TEXT NOT NULL,
  is_default             INTEGER NOT NULL DEFAULT 0,
  monthly_budget_micros  INTEGER,
  archived_at            INTEGER,
  created_at             INTEGER NOT NULL
);
CREATE INDEX workspaces_by_org ON workspaces(org_id);

CREATE TABLE api_keys (
  id                     TEXT PRIMARY KEY,
  org_id                 TEXT NOT NULL REFERENCES orgs(id),
  workspace_id           TEXT NOT NULL REFERENCES workspaces(id),
  name                   TEXT NOT NULL,
  hash                   TEXT NOT NULL UNIQUE,
  prefix                 TEXT NOT NULL,
  tier                   TEXT NOT NULL CHECK (tier IN ('trial', 'standard')),
  scope                  TEXT NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'inference')),
  rpm_limit              INTEGER,
  daily_limit            INTEGER,
  monthly_budget_micros  INTEGER,
  expires_at             INTEGER,
  revoked_at             INTEGER,
  last_used_at           INTEGER,
  created_at             INTEGER NOT NULL
);
CREATE INDEX api_keys_by_org ON api_keys(org_id);

-- Credits, payments and bonuses. Usage debits live in the usage table.
CREATE TABLE money_events (
  id             INTEGER PRIMARY KEY,
  org_id         TEXT NOT NULL REFERENCES orgs(id),
  at             INTEGER NOT NULL,
  kind           TEXT NOT NULL CHECK (kind IN ('operator_credit', 'signup_credit', 'payment', 'promo_bonus', 'refund', 'adjustment')),
  amount_micros  INTEGER NOT NULL,
  note           TEXT,
  -- idempotency reference (payment id); unique when present
  ref            TEXT UNIQUE
);
CREATE INDEX money_events_by_org ON money_events(org_id, at);

-- One row per upstream attempt. billable = 1 on the row that served the request (at most one
-- per request); failed attempts are kept with billable = 0 and cost 0.
CREATE TABLE usage (
  id                 INTEGER PRIMARY KEY,
  at                 INTEGER NOT NULL,
  request_id         TEXT NOT NULL,
  org_id             TEXT NOT NULL,
  workspace_id       TEXT NOT NULL,
  key_id             TEXT NOT NULL,
  endpoint           TEXT NOT NULL,
  model              TEXT NOT NULL,
  provider           TEXT,
  route              TEXT,
  attempt            INTEGER NOT NULL,
  status             INTEGER NOT NULL,
  error_code         TEXT,
  prompt_tokens      INTEGER NOT NULL DEFAULT 0,
  completion_tokens  INTEGER NOT NULL DEFAULT 0,
  cost_micros        INTEGER NOT NULL DEFAULT 0,
  latency_ms         REAL NOT NULL,
  ttfb_ms            REAL,
  streamed           INTEGER NOT NULL DEFAULT 0,
  byok               INTEGER NOT NULL DEFAULT 0,
  billable           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX usage_by_org_time ON usage(org_id, at);
CREATE INDEX usage_by_key_time ON usage(key_id, at);

-- Per-key and per-workspace counters kept by the ledger writer in the same transaction as the
-- usage rows: requests per IST day, spend per IST month. They make limits durable across restarts.
CREATE TABLE key_daily_counts (
  key_id    TEXT NOT NULL,
  ist_day   TEXT NOT NULL,
  requests  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, ist_day)
) WITHOUT ROWID;

CREATE TABLE monthly_spend (
  scope_id      TEXT NOT NULL,
  ist_month     TEXT NOT NULL,
  spent_micros  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (scope_id, ist_month)
) WITHOUT ROWID;

-- Change feed for other processes (the operator CLI): the gateway polls it and drops what it cached.
CREATE TABLE change_log (
  seq   INTEGER PRIMARY KEY AUTOINCREMENT,
  at    INTEGER NOT NULL,
  kind  TEXT NOT NULL CHECK (kind IN ('key', 'org', 'workspace')),
  ref   TEXT NOT NULL
);

-- migration: 2
-- Accounts: browser sessions, one-time login links, OAuth sign-in state, invitations, the signup survey.
CREATE TABLE sessions (
  hash           TEXT PRIMARY KEY,           -- SHA-256 of the gw_session cookie value (256 random bits)
  user_id        TEXT NOT NULL REFERENCES users(id),
  active_org_id  TEXT NOT NULL REFERENCES orgs(id),
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL
);
CREATE INDEX sessions_by_user ON sessions(user_id);

CREATE TABLE login_links (
  hash        TEXT PRIMARY KEY,              -- SHA-256 of the one-time token
  email       TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  used_at     INTEGER
);

CREATE TABLE oauth_states (
  state          TEXT PRIMARY KEY,
  provider       TEXT NOT NULL,
  code_verifier  TEXT NOT NULL,
  nonce          TEXT,
  return_to      TEXT,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL
);

CREATE TABLE user_identities (
  provider    TEXT NOT NULL,                 -- google, github, or any configured OIDC provider id
  subject     TEXT NOT NULL,
  user_id     TEXT NOT NULL REFERENCES users(id),
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (provider, subject)
);

CREATE TABLE invitations (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL REFERENCES orgs(id),
  email       TEXT NOT NULL COLLATE NOCASE,
  role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  invited_by  TEXT NOT NULL REFERENCES users(id),
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined', 'revoked')),
  created_at  INTEGER NOT NULL,
  decided_at  INTEGER
);
CREATE INDEX invitations_by_email ON invitations(email, status);
CREATE INDEX invitations_by_org ON invitations(org_id, status);

CREATE TABLE attributions (
  user_id     TEXT PRIMARY KEY REFERENCES users(id),
  answers     TEXT NOT NULL,                 -- JSON object as submitted
  created_at  INTEGER NOT NULL
);

-- Keyset pagination of /me/activity/events walks (org_id, id) newest first.
CREATE INDEX usage_by_org_id ON usage(org_id, id);

-- migration: 3
-- No query reads these (reports walk usage_by_org_id, gw tail follows the primary key); each cost
-- the ledger writer an index insert per row.
DROP INDEX IF EXISTS usage_by_org_time;
DROP INDEX IF EXISTS usage_by_key_time;

-- migration: 4
-- 1 when the provider reported no usage and the token counts (and so the cost) are the
-- gateway's estimate (docs/limits-and-billing.md, "Answers without usage").
ALTER TABLE usage ADD COLUMN usage_estimated INTEGER NOT NULL DEFAULT 0;

-- migration: 5
-- What an audio request is billed on: seconds of audio heard (endpoint transcriptions), characters
-- of text spoken (endpoint speech); 0 on token-billed rows (docs/audio.md).
ALTER TABLE usage ADD COLUMN units INTEGER NOT NULL DEFAULT 0;

-- migration: 6
-- An org's saved routing chain per model (spec 4.7): `steps` is a JSON array of
-- {"model", "provider"} tried in order when a request names `model` (docs/routing.md).
CREATE TABLE routing_chains (
  org_id      TEXT NOT NULL REFERENCES orgs(id),
  model       TEXT NOT NULL,
  steps       TEXT NOT NULL,
  updated_at  INTEGER NOT NULL,
  updated_by  TEXT NOT NULL,
  PRIMARY KEY (org_id, model)
) WITHOUT ROWID;

-- migration: 7
-- Collections (spec 4.8): a named, versioned chain an org may share publicly, star, fork and
-- import as its routing. `slug` is global and never changes; every edit adds a version row.
CREATE TABLE collections (
  id           TEXT PRIMARY KEY,
  org_id       TEXT NOT NULL REFERENCES orgs(id),
  slug         TEXT NOT NULL UNIQUE,
  name         TEXT NOT NULL,
  model        TEXT NOT NULL,
  steps        TEXT NOT NULL,
  readme_md    TEXT NOT NULL DEFAULT '',
  public       INTEGER NOT NULL DEFAULT 0,
  version      INTEGER NOT NULL DEFAULT 1,
  forked_from  TEXT,
  monitored    INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
CREATE INDEX collections_by_org ON collections(org_id);
CREATE INDEX collections_public ON collections(public, updated_at);

CREATE TABLE collection_versions (
  collection_id  TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  version        INTEGER NOT NULL,
  name           TEXT NOT NULL,
  model          TEXT NOT NULL,
  steps          TEXT NOT NULL,
  readme_md      TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  PRIMARY KEY (collection_id, version)
) WITHOUT ROWID;

-- One star per org per collection.
CREATE TABLE collection_stars (
  collection_id  TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  org_id         TEXT NOT NULL REFERENCES orgs(id),
  created_at     INTEGER NOT NULL,
  PRIMARY KEY (collection_id, org_id)
) WITHOUT ROWID;

-- migration: 8
-- An org's saved provider key (spec 4.5), sealed with the master key (AES-256-GCM, bound to the
-- org and provider); `models` is the JSON list of model ids discovered when it was checked.
CREATE TABLE byok_keys (
  org_id       TEXT NOT NULL REFERENCES orgs(id),
  provider     TEXT NOT NULL,
  key_sealed   TEXT NOT NULL,
  key_hint     TEXT NOT NULL,
  label        TEXT,
  always_use   INTEGER NOT NULL DEFAULT 0,
  models       TEXT NOT NULL DEFAULT '[]',
  verified_at  INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (org_id, provider)
) WITHOUT ROWID;

-- migration: 9
-- An org's registered OpenAI-compatible endpoints (spec 4.9), called as custom/<name>/<model>.
-- The key is sealed like saved provider keys; `compliance` is the JSON report of the last test.
CREATE TABLE custom_endpoints (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL REFERENCES orgs(id),
  name        TEXT NOT NULL,
  base_url    TEXT NOT NULL,
  key_sealed  TEXT,
  key_hint    TEXT,
  status      TEXT NOT NULL,
  compliance  TEXT NOT NULL,
  tested_at   INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (org_id, name)
);

-- migration: 10
-- Reliability monitoring (spec 4.10): one row per canary call to a step's route, and alerts on a
-- collection's canaries, delivered to a webhook (signed) or by email when they start and stop firing.
CREATE TABLE canaries (
  id             INTEGER PRIMARY KEY,
  collection_id  TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  route          TEXT NOT NULL,
  at             INTEGER NOT NULL,
  ok             INTEGER NOT NULL,
  latency_ms     REAL NOT NULL,
  error          TEXT
);
CREATE INDEX canaries_by_collection ON canaries(collection_id, at);

CREATE TABLE alerts (
  id             TEXT PRIMARY KEY,
  collection_id  TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  metric         TEXT NOT NULL CHECK (metric IN ('error_rate', 'latency_p95')),
  threshold      REAL NOT NULL,
  window_minutes INTEGER NOT NULL DEFAULT 15,
  target_kind    TEXT NOT NULL CHECK (target_kind IN ('webhook', 'email')),
  target         TEXT NOT NULL,
  -- Webhooks: the HMAC-SHA256 signing secret, sealed with the master key; shown once, at creation.
  secret_sealed  TEXT,
  firing         INTEGER NOT NULL DEFAULT 0,
  last_value     REAL,
  last_fired_at  INTEGER,
  last_delivery  TEXT,
  created_at     INTEGER NOT NULL
);
CREATE INDEX alerts_by_collection ON alerts(collection_id);

-- migration: 11
-- Billing (spec 4.6, 4.13): the billing address (GST place of supply), top-up orders with the
-- payment provider and the payments made against them, operator promo codes, and the
-- low-balance email threshold. Money stays in micro-rupees; the provider sees paise at its edge.
CREATE TABLE billing_addresses (
  org_id      TEXT PRIMARY KEY REFERENCES orgs(id),
  name        TEXT NOT NULL,
  line1       TEXT NOT NULL,
  line2       TEXT,
  city        TEXT NOT NULL,
  state_code  TEXT NOT NULL,               -- GST state code ('29' Karnataka): the place of supply
  pincode     TEXT NOT NULL,
  gstin       TEXT,
  updated_at  INTEGER NOT NULL
);

CREATE TABLE promo_codes (
  code             TEXT PRIMARY KEY COLLATE NOCASE,
  kind             TEXT NOT NULL CHECK (kind IN ('fixed', 'percent')),
  -- fixed: the bonus in micro-rupees; percent: whole percent of the top-up (1-100)
  value            INTEGER NOT NULL CHECK (value > 0),
  expires_at       INTEGER,
  max_redemptions  INTEGER,
  disabled_at      INTEGER,
  created_at       INTEGER NOT NULL
);

-- One redemption per org and code, recorded when the order it came with is paid; a code's count
-- of redemptions is counted from here, not kept beside it.
CREATE TABLE promo_redemptions (
  code          TEXT NOT NULL COLLATE NOCASE REFERENCES promo_codes(code),
  org_id        TEXT NOT NULL REFERENCES orgs(id),
  order_id      TEXT NOT NULL,
  bonus_micros  INTEGER NOT NULL,
  at            INTEGER NOT NULL,
  PRIMARY KEY (code, org_id)
);

-- A top-up: the credit bought, the GST on it by place of supply, and what the payment provider
-- charges. Moves created -> paid once (credited exactly once, whichever of the checkout
-- verification, the webhook and the reconciler sees the payment first); failed payments leave
-- it open for a retry.
CREATE TABLE payment_orders (
  id                  TEXT PRIMARY KEY,      -- the payment provider's order id
  org_id              TEXT NOT NULL REFERENCES orgs(id),
  created_by          TEXT,                  -- user id
  credit_micros       INTEGER NOT NULL,      -- amount_inr
  cgst_micros         INTEGER NOT NULL,
  sgst_micros         INTEGER NOT NULL,
  igst_micros         INTEGER NOT NULL,
  total_micros        INTEGER NOT NULL,      -- charged: credit + tax
  place_of_supply     TEXT NOT NULL,         -- GST state code of the billing address
  bill_to             TEXT NOT NULL,         -- JSON snapshot of the billing address, for the receipt
  promo_code          TEXT,
  promo_bonus_micros  INTEGER NOT NULL DEFAULT 0,
  status              TEXT NOT NULL CHECK (status IN ('created', 'paid')),
  payment_id          TEXT UNIQUE,           -- the payment that paid it
  receipt_no          INTEGER UNIQUE,        -- gap-free, assigned when paid
  paid_at             INTEGER,
  paid_via            TEXT CHECK (paid_via IN ('checkout', 'webhook', 'reconcile')),
  created_at          INTEGER NOT NULL
);
CREATE INDEX payment_orders_by_org ON payment_orders(org_id, created_at);
-- The reconciler's question: which orders are still open.
CREATE INDEX payment_orders_open ON payment_orders(created_at) WHERE status = 'created';

-- Every payment attempt the provider reported: captured (the one that paid the order) or failed.
CREATE TABLE payments (
  id            TEXT PRIMARY KEY,            -- the payment provider's payment id
  order_id      TEXT NOT NULL REFERENCES payment_orders(id),
  org_id        TEXT NOT NULL REFERENCES orgs(id),
  status        TEXT NOT NULL CHECK (status IN ('captured', 'failed')),
  amount_micros INTEGER NOT NULL,
  method        TEXT,
  error         TEXT,
  at            INTEGER NOT NULL
);
CREATE INDEX payments_by_org ON payments(org_id, at);

ALTER TABLE orgs ADD COLUMN low_balance_micros INTEGER;
-- Set when the low-balance mail went out; cleared once the balance is back above the threshold.
ALTER TABLE orgs ADD COLUMN low_balance_mailed_at INTEGER;
-- The low-balance watcher reads only orgs that set a threshold.
CREATE INDEX orgs_with_low_balance ON orgs(id) WHERE low_balance_micros IS NOT NULL;

-- migration: 12
-- Alert deliveries waiting to be made or retried (spec 4.10): kept in the database, so a restart
-- resumes them instead of losing them. A row is removed once delivered or given up.
CREATE TABLE alert_deliveries (
  id          INTEGER PRIMARY KEY,
  alert_id    TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  state       TEXT NOT NULL CHECK (state IN ('firing', 'resolved')),
  event       TEXT NOT NULL,               -- the JSON body delivered
  attempts    INTEGER NOT NULL DEFAULT 0,
  next_at     INTEGER NOT NULL,
  last_error  TEXT,
  created_at  INTEGER NOT NULL
);
CREATE INDEX alert_deliveries_by_alert ON alert_deliveries(alert_id, id);
CREATE INDEX alert_deliveries_due ON alert_deliveries(next_at);

-- migration: 13
-- How long the attempt waited for a free connection to the provider (upstream.connectionsPerOrigin),
-- in ms; 0 when one was free (docs/ledger.md, docs/configuration.md "Sizing upstream connections").
ALTER TABLE usage ADD COLUMN queue_ms REAL NOT NULL DEFAULT 0;

-- migration: 14
-- 1 when the provider reported more tokens than the request could have used and the counts (and
-- so the cost) were cut to those bounds (docs/limits-and-billing.md, "Usage a provider reports").
ALTER TABLE usage ADD COLUMN usage_clamped INTEGER NOT NULL DEFAULT 0;

-- migration: 15
-- Cached and reasoning tokens (docs/limits-and-billing.md, "Cached and reasoning tokens"), in the
-- canonical convention: cached_tokens and cache_write_tokens are parts of prompt_tokens (billed at
-- the catalog's cachedInput and cacheWrite prices), reasoning_tokens a part of completion_tokens.
ALTER TABLE usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;

-- migration: 16
-- Stored Responses API answers (POST /v1/responses with store, the default; docs/formats/responses.md):
-- the response object and the conversation's items, so previous_response_id can continue it and
-- GET/DELETE /v1/responses/{id} work. Per org; removed past expires_at (responses.retentionDays).
CREATE TABLE stored_responses (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL REFERENCES orgs(id),
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  model       TEXT NOT NULL,
  body_json   TEXT NOT NULL,
  items_json  TEXT NOT NULL
);
CREATE INDEX stored_responses_by_expiry ON stored_responses(expires_at);

-- migration: 17
-- The usage reports' rollup (src/store/usage-rollup.ts): the ledger summed by IST day (days since
-- 1970-01-01 IST), org, key, model and provider ('' for none), kept in the database so a restart
-- does not fold the whole ledger again. Every usage row with id <= usage_rollup_mark.last_id is
-- in it exactly once. min_id and max_id bound the row ids of a cell: a date range of the events
-- feed becomes a range of usage_by_org_id. Existing ledgers are folded in after the upgrade, in
-- the background, in steps.
CREATE TABLE usage_rollup (
  org_id              TEXT NOT NULL,
  day                 INTEGER NOT NULL,
  key_id              TEXT NOT NULL,
  model               TEXT NOT NULL,
  provider            TEXT NOT NULL,
  requests            INTEGER NOT NULL,      -- rows with attempt = 0
  prompt_tokens       INTEGER NOT NULL,      -- this and the next six: billable rows only
  completion_tokens   INTEGER NOT NULL,
  cached_tokens       INTEGER NOT NULL,
  cache_write_tokens  INTEGER NOT NULL,
  reasoning_tokens    INTEGER NOT NULL,
  cost_micros         INTEGER NOT NULL,
  served              INTEGER NOT NULL,
  attempts            INTEGER NOT NULL,      -- every row
  min_id              INTEGER NOT NULL,
  max_id              INTEGER NOT NULL,
  PRIMARY KEY (org_id, day, key_id, model, provider)
) WITHOUT ROWID;
CREATE TABLE usage_rollup_mark (
  one      INTEGER PRIMARY KEY CHECK (one = 1),
  last_id  INTEGER NOT NULL
);
INSERT INTO usage_rollup_mark (one, last_id) VALUES (1, 0);

-- migration: 18
-- The ledger batches a PostgreSQL ledger writer has committed, by the id the gateway gave each
-- batch (src/store/postgres/pg-usage.ts): inserted in the batch's own transaction, so a batch
-- replayed from the spool file after PostgreSQL was unreachable (its commit may have gone
-- through before the connection broke) is recognised and not written twice. SQLite's writer
-- commits locally and does not use it.
CREATE TABLE ledger_batches (
  id    TEXT PRIMARY KEY,
  at    INTEGER NOT NULL,      -- the batch's newest row's `at` (Unix ms): what a pruning of old ids would go by
  rows  INTEGER NOT NULL
);

-- migration: 19
-- Guardrails (docs/guardrails.md). usage.guardrail: what the request's guardrail did, as its
-- answer header x-gw-guardrails says it ('redacted=aadhaar,pan', 'blocked=card'); NULL when
-- nothing fired. api_keys.guardrails and orgs.guardrails: a key's and an org's policy in the
-- header's text form ('redact=india;block=secret;outputs', 'off'); NULL when not set.
ALTER TABLE usage ADD COLUMN guardrail TEXT;
ALTER TABLE api_keys ADD COLUMN guardrails TEXT;
ALTER TABLE orgs ADD COLUMN guardrails TEXT;

-- migration: 20
-- Batch ids are needed only until a spooled batch could still be replayed: the PostgreSQL writer
-- prunes those older than a week in each batch's commit, by `at`.
CREATE INDEX ledger_batches_at ON ledger_batches (at);

-- migration: 21
-- The exact-match response cache (docs/cache.md): an answer stored under the hash of its org,
-- route and normalised request, until `expires_at`; the whole entry (status, headers, body) as
-- one JSON text. usage.cache_hit: the request was answered from it (no provider, no cost).
CREATE TABLE response_cache (
  key        TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  bytes      INTEGER NOT NULL,
  entry      TEXT NOT NULL
);
CREATE INDEX response_cache_expires ON response_cache (expires_at);
ALTER TABLE usage ADD COLUMN cache_hit INTEGER NOT NULL DEFAULT 0;

-- migration: 22
-- Cache settings per key and per org (docs/cache.md). response_cache: the exact-match cache mode
-- ('off', 'on', 'always') of requests that send no x-gw-cache header; prompt_cache: whether the
-- gateway adds prompt-cache markers ('auto', 'off') when the body says nothing. NULL: not set
-- (a key follows its org, an org the config). response_cache.cost_micros: what the stored answer
-- cost when it was first served, of which a hit is billed responseCache.hitCostPercent.
ALTER TABLE api_keys ADD COLUMN response_cache TEXT;
ALTER TABLE api_keys ADD COLUMN prompt_cache TEXT;
ALTER TABLE orgs ADD COLUMN response_cache TEXT;
ALTER TABLE orgs ADD COLUMN prompt_cache TEXT;
ALTER TABLE response_cache ADD COLUMN cost_micros INTEGER NOT NULL DEFAULT 0;
