-- The schema of SQLite's migrations 001 to 015, in PostgreSQL's dialect. Text is compared byte by
-- byte (COLLATE "C"), as SQLite's BINARY does: ids and ISO 8601 times sort and page the same way on
-- both backends, and prefix searches use the btree indexes. Flags stay 0/1 integers and instants in
-- milliseconds stay integers (BIGINT), so one set of store queries reads both.

CREATE TABLE organizations (
  id          TEXT COLLATE "C" PRIMARY KEY,
  name        TEXT COLLATE "C" NOT NULL,
  created_at  TEXT COLLATE "C" NOT NULL
);

CREATE TABLE api_clients (
  id            TEXT COLLATE "C" PRIMARY KEY,
  org_id        TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  name          TEXT COLLATE "C",
  secret_hash   TEXT COLLATE "C" NOT NULL,
  pii_access    TEXT COLLATE "C" NOT NULL CHECK (pii_access IN ('all', 'redacted')),
  created_at    TEXT COLLATE "C" NOT NULL,
  revoked_at    TEXT COLLATE "C"
);
CREATE INDEX api_clients_org ON api_clients(org_id);

CREATE TABLE token_keys (
  kid             TEXT COLLATE "C" PRIMARY KEY,
  alg             TEXT COLLATE "C" NOT NULL,
  public_jwk      TEXT COLLATE "C" NOT NULL,
  private_enc     TEXT COLLATE "C" NOT NULL,
  created_at      TEXT COLLATE "C" NOT NULL,
  retired_at      TEXT COLLATE "C"
);

CREATE TABLE service_meta (
  key   TEXT COLLATE "C" PRIMARY KEY,
  value TEXT COLLATE "C" NOT NULL
);

CREATE TABLE identities (
  id                     TEXT COLLATE "C" PRIMARY KEY,
  org_id                 TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  type                   TEXT COLLATE "C" NOT NULL CHECK (type IN ('Personal', 'Business')),
  deleted                INTEGER NOT NULL DEFAULT 0,
  has_compliance_checks  INTEGER NOT NULL DEFAULT 0,
  data                   TEXT COLLATE "C" NOT NULL,
  first_name_lc          TEXT COLLATE "C" NOT NULL DEFAULT '',
  last_name_lc           TEXT COLLATE "C" NOT NULL DEFAULT '',
  full_name_lc           TEXT COLLATE "C" NOT NULL DEFAULT '',
  email_lc               TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at             TEXT COLLATE "C" NOT NULL
);
CREATE INDEX identities_org_email ON identities(org_id, email_lc);
CREATE INDEX identities_org_first ON identities(org_id, first_name_lc);
CREATE INDEX identities_org_full ON identities(org_id, full_name_lc);
CREATE INDEX identities_org_id ON identities(org_id, id);
CREATE INDEX identities_org_id_names ON identities(org_id, id, type, first_name_lc, last_name_lc, full_name_lc, email_lc);
CREATE INDEX identities_org_last ON identities(org_id, last_name_lc);
CREATE INDEX identities_org_type ON identities(org_id, type, id);

CREATE TABLE accounts (
  id                    TEXT COLLATE "C" PRIMARY KEY,
  org_id                TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  provider              TEXT COLLATE "C" NOT NULL,
  name                  TEXT COLLATE "C" NOT NULL,
  assets                TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  fiats                 TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  identity_id           TEXT COLLATE "C" REFERENCES identities(id),
  legacy_type           TEXT COLLATE "C",
  legacy_pfi            TEXT COLLATE "C",
  legacy_web3_provider  TEXT COLLATE "C",
  created_at            TEXT COLLATE "C" NOT NULL
);
CREATE INDEX accounts_org ON accounts(org_id, id);

CREATE TABLE compliance_checks (
  id          TEXT COLLATE "C" PRIMARY KEY,
  org_id      TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  identity_id TEXT COLLATE "C" NOT NULL,
  status      TEXT COLLATE "C" NOT NULL,
  result      TEXT COLLATE "C",
  reason      TEXT COLLATE "C",
  created_at  TEXT COLLATE "C" NOT NULL,
  updated_at  TEXT COLLATE "C" NOT NULL
);
CREATE INDEX compliance_checks_org ON compliance_checks(org_id, id);

CREATE TABLE virtual_accounts (
  id             TEXT COLLATE "C" PRIMARY KEY,
  org_id         TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  identity_id    TEXT COLLATE "C",
  account_id     TEXT COLLATE "C",
  currency       TEXT COLLATE "C",
  status         TEXT COLLATE "C" NOT NULL,
  failure_reason TEXT COLLATE "C",
  created_at     TEXT COLLATE "C" NOT NULL,
  updated_at     TEXT COLLATE "C" NOT NULL
);
CREATE INDEX virtual_accounts_org ON virtual_accounts(org_id, id);

CREATE TABLE integrations (
  id               TEXT COLLATE "C" PRIMARY KEY,
  org_id           TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  provider         TEXT COLLATE "C" NOT NULL,
  kind             TEXT COLLATE "C" NOT NULL,
  credentials_enc  TEXT COLLATE "C" NOT NULL,
  result           TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at       TEXT COLLATE "C" NOT NULL,
  updated_at       TEXT COLLATE "C" NOT NULL,
  UNIQUE (org_id, provider)
);

CREATE TABLE transactions (
  id                      TEXT COLLATE "C" PRIMARY KEY,
  org_id                  TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  origin                  TEXT COLLATE "C" NOT NULL CHECK (origin IN ('orchestrated', 'imported')),
  type                    TEXT COLLATE "C" NOT NULL,
  status                  TEXT COLLATE "C" NOT NULL,
  amount                  TEXT COLLATE "C",
  currency                TEXT COLLATE "C",
  network                 TEXT COLLATE "C",
  source                  TEXT COLLATE "C",
  destination             TEXT COLLATE "C",
  refund_destination      TEXT COLLATE "C",
  failure_reason          TEXT COLLATE "C",
  provider                TEXT COLLATE "C",
  provider_transaction_id TEXT COLLATE "C",
  country                 TEXT COLLATE "C",
  identity_id             TEXT COLLATE "C",
  account_id              TEXT COLLATE "C",
  created_at              TEXT COLLATE "C" NOT NULL,
  updated_at              TEXT COLLATE "C" NOT NULL,
  benchmark               TEXT COLLATE "C",
  review_state            TEXT COLLATE "C",
  reconciliation          TEXT COLLATE "C",
  amount_usd              TEXT COLLATE "C",
  cost_vs_market_usd      TEXT COLLATE "C",
  corridor                TEXT COLLATE "C",
  import_id               TEXT COLLATE "C"
);
CREATE UNIQUE INDEX transactions_imported_provider_txn ON transactions(org_id, COALESCE(provider, ''), provider_transaction_id)
  WHERE origin = 'imported' AND provider_transaction_id IS NOT NULL;
CREATE INDEX transactions_org_benchmark ON transactions(org_id, benchmark);
CREATE INDEX transactions_org_country ON transactions(org_id, country);
CREATE INDEX transactions_org_created ON transactions(org_id, created_at);
CREATE INDEX transactions_org_currency ON transactions(org_id, currency);
CREATE INDEX transactions_org_origin ON transactions(org_id, origin, created_at);
CREATE INDEX transactions_org_provider ON transactions(org_id, provider);
CREATE INDEX transactions_org_provider_txn ON transactions(org_id, provider_transaction_id);
CREATE INDEX transactions_org_reconciliation ON transactions(org_id, reconciliation);
CREATE INDEX transactions_org_review ON transactions(org_id, review_state);
CREATE INDEX transactions_org_status ON transactions(org_id, status);
CREATE INDEX transactions_org_type ON transactions(org_id, type);
CREATE INDEX transactions_org_updated ON transactions(org_id, updated_at);

CREATE TABLE refund_configs (
  org_id       TEXT COLLATE "C" PRIMARY KEY REFERENCES organizations(id),
  destination  TEXT COLLATE "C" NOT NULL,
  verified_at  TEXT COLLATE "C" NOT NULL,
  updated_at   TEXT COLLATE "C" NOT NULL,
  version      INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE refund_plans (
  id                 TEXT COLLATE "C" PRIMARY KEY,
  org_id             TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  transaction_id     TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES transactions(id),
  state              TEXT COLLATE "C" NOT NULL CHECK (state IN ('Created', 'Dispatched', 'Paused', 'ManualHandling', 'NoDestination')),
  kind               TEXT COLLATE "C" NOT NULL CHECK (kind IN ('CryptoRefund', 'FiatReturnAsCrypto', 'ManualFiat', 'None')),
  destination_from   TEXT COLLATE "C" NOT NULL CHECK (destination_from IN ('transaction', 'default', 'none')),
  destination        TEXT COLLATE "C",
  auto_refund        INTEGER NOT NULL,
  reason             TEXT COLLATE "C" NOT NULL,
  created_at         TEXT COLLATE "C" NOT NULL,
  updated_at         TEXT COLLATE "C" NOT NULL,
  dispatched_at      TEXT COLLATE "C",
  default_version    INTEGER
);
CREATE INDEX refund_plans_org_state ON refund_plans(org_id, state, id);

CREATE TABLE webhooks (
  id              TEXT COLLATE "C" PRIMARY KEY,
  org_id          TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  url             TEXT COLLATE "C" NOT NULL,
  enabled         INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  disabled_reason TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL,
  updated_at      TEXT COLLATE "C" NOT NULL,
  deleted_at      TEXT COLLATE "C"
);
CREATE INDEX webhooks_org ON webhooks(org_id, id);

CREATE TABLE webhook_keys (
  id           TEXT COLLATE "C" PRIMARY KEY,
  org_id       TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  public_pem   TEXT COLLATE "C" NOT NULL,
  private_enc  TEXT COLLATE "C" NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL,
  retired_at   TEXT COLLATE "C"
);
CREATE INDEX webhook_keys_org ON webhook_keys(org_id, created_at);

CREATE TABLE events (
  id          TEXT COLLATE "C" PRIMARY KEY,
  org_id      TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  type        TEXT COLLATE "C" NOT NULL,
  body        TEXT COLLATE "C" NOT NULL,
  created_at  TEXT COLLATE "C" NOT NULL
);
CREATE INDEX events_org_id ON events(org_id, id);

CREATE TABLE event_signatures (
  event_id   TEXT COLLATE "C" NOT NULL REFERENCES events(id),
  key_id     TEXT COLLATE "C" NOT NULL,
  signature  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (event_id, key_id)
);

CREATE TABLE deliveries (
  id              TEXT COLLATE "C" PRIMARY KEY,
  event_id        TEXT COLLATE "C" NOT NULL REFERENCES events(id),
  webhook_id      TEXT COLLATE "C" NOT NULL REFERENCES webhooks(id),
  org_id          TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  state           TEXT COLLATE "C" NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'skipped', 'cancelled')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  step            INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  claimed_by      TEXT COLLATE "C",
  lease_until     BIGINT,
  last_status     INTEGER,
  last_error      TEXT COLLATE "C",
  delivered_at    TEXT COLLATE "C",
  created_at      TEXT COLLATE "C" NOT NULL,
  updated_at      TEXT COLLATE "C" NOT NULL,
  UNIQUE (event_id, webhook_id)
);
CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at);
CREATE INDEX deliveries_org_state ON deliveries(org_id, state, id);
CREATE INDEX deliveries_retrying ON deliveries(webhook_id, updated_at) WHERE state = 'pending' AND attempts > 0;
CREATE INDEX deliveries_webhook_due ON deliveries(webhook_id, state, next_attempt_at, id);

CREATE TABLE delivery_attempts (
  id            TEXT COLLATE "C" PRIMARY KEY,
  delivery_id   TEXT COLLATE "C" NOT NULL REFERENCES deliveries(id),
  attempt       INTEGER NOT NULL,
  started_at    TEXT COLLATE "C" NOT NULL,
  duration_ms   INTEGER NOT NULL,
  status_code   INTEGER,
  error         TEXT COLLATE "C",
  response_body TEXT COLLATE "C",
  key_id        TEXT COLLATE "C"
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts(delivery_id, attempt);

CREATE TABLE inbound_ica_organizations (
  ica         TEXT COLLATE "C" PRIMARY KEY,
  org_id      TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  created_at  TEXT COLLATE "C" NOT NULL
);

CREATE TABLE card_network_keys (
  id           TEXT COLLATE "C" PRIMARY KEY,
  org_id       TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  kid          TEXT COLLATE "C" NOT NULL,
  public_pem   TEXT COLLATE "C" NOT NULL,
  private_enc  TEXT COLLATE "C" NOT NULL,
  source       TEXT COLLATE "C" NOT NULL CHECK (source IN ('generated', 'imported')),
  created_at   TEXT COLLATE "C" NOT NULL,
  UNIQUE (org_id, kid)
);

CREATE TABLE inbound_events (
  id                  TEXT COLLATE "C" PRIMARY KEY,
  event_id            TEXT COLLATE "C" NOT NULL UNIQUE,
  event_type          TEXT COLLATE "C" NOT NULL,
  event_created_date  TEXT COLLATE "C" NOT NULL,
  ica                 TEXT COLLATE "C" NOT NULL,
  org_id              TEXT COLLATE "C" REFERENCES organizations(id),
  raw_body            TEXT COLLATE "C" NOT NULL,
  state               TEXT COLLATE "C" NOT NULL CHECK (state IN ('received', 'decrypted', 'failed', 'unmatched')),
  attempts            INTEGER NOT NULL DEFAULT 0,
  next_attempt_at     TEXT COLLATE "C",
  failure_code        TEXT COLLATE "C",
  failure_reason      TEXT COLLATE "C",
  kid                 TEXT COLLATE "C",
  payload_enc         TEXT COLLATE "C",
  received_at         TEXT COLLATE "C" NOT NULL,
  decrypted_at        TEXT COLLATE "C",
  updated_at          TEXT COLLATE "C" NOT NULL,
  copy_received_at    TEXT COLLATE "C"
);
CREATE INDEX inbound_events_due ON inbound_events(state, next_attempt_at, id);
CREATE INDEX inbound_events_ica ON inbound_events(ica, state);
CREATE INDEX inbound_events_state_id ON inbound_events(state, id);
CREATE INDEX inbound_events_type ON inbound_events(event_type, id);

CREATE TABLE inbound_event_held_copies (
  inbound_id          TEXT COLLATE "C" NOT NULL REFERENCES inbound_events(id) ON DELETE CASCADE,
  seq                 INTEGER NOT NULL,
  raw_body            TEXT COLLATE "C" NOT NULL,
  event_type          TEXT COLLATE "C" NOT NULL,
  event_created_date  TEXT COLLATE "C" NOT NULL,
  received_at         TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (inbound_id, seq)
);

CREATE TABLE inbound_event_replaced_copies (
  inbound_id          TEXT COLLATE "C" NOT NULL REFERENCES inbound_events(id) ON DELETE CASCADE,
  seq                 INTEGER NOT NULL,
  raw_body            TEXT COLLATE "C" NOT NULL,
  event_type          TEXT COLLATE "C" NOT NULL,
  event_created_date  TEXT COLLATE "C" NOT NULL,
  failure_code        TEXT COLLATE "C" NOT NULL,
  failure_reason      TEXT COLLATE "C",
  kid                 TEXT COLLATE "C",
  attempts            INTEGER NOT NULL,
  received_at         TEXT COLLATE "C" NOT NULL,
  replaced_at         TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (inbound_id, seq)
);
