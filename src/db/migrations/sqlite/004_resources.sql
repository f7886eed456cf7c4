-- Identities: the record's data object is kept as JSON; lowercase copies of the names and email are
-- indexed per organization so prefix filters are index range scans (first >= x AND first < x || U+10FFFF).
CREATE TABLE identities (
  id                     TEXT PRIMARY KEY,          -- idn_…, sortable: the list pages by id
  org_id                 TEXT NOT NULL REFERENCES organizations(id),
  type                   TEXT NOT NULL CHECK (type IN ('Personal', 'Business')),
  deleted                INTEGER NOT NULL DEFAULT 0,
  has_compliance_checks  INTEGER NOT NULL DEFAULT 0,
  data                   TEXT NOT NULL,             -- JSON of the Identity data object
  first_name_lc          TEXT NOT NULL DEFAULT '',
  last_name_lc           TEXT NOT NULL DEFAULT '',
  full_name_lc           TEXT NOT NULL DEFAULT '',  -- "firstname lastname"
  email_lc               TEXT NOT NULL DEFAULT '',
  created_at             TEXT NOT NULL
);
CREATE INDEX identities_org_id ON identities(org_id, id);
CREATE INDEX identities_org_type ON identities(org_id, type, id);
CREATE INDEX identities_org_first ON identities(org_id, first_name_lc);
CREATE INDEX identities_org_last ON identities(org_id, last_name_lc);
CREATE INDEX identities_org_full ON identities(org_id, full_name_lc);
CREATE INDEX identities_org_email ON identities(org_id, email_lc);

CREATE TABLE accounts (
  id                    TEXT PRIMARY KEY,           -- acc_…
  org_id                TEXT NOT NULL REFERENCES organizations(id),
  provider              TEXT NOT NULL,
  name                  TEXT NOT NULL,
  assets                TEXT NOT NULL DEFAULT '[]', -- JSON [{id, asset, address}]
  fiats                 TEXT NOT NULL DEFAULT '[]', -- JSON [{id, fiat}]
  identity_id           TEXT REFERENCES identities(id),
  legacy_type           TEXT,                       -- deprecated Account.type (wallet | institution)
  legacy_pfi            TEXT,                       -- deprecated Account.pfi
  legacy_web3_provider  TEXT,                       -- deprecated Account.web3Provider
  created_at            TEXT NOT NULL
);
CREATE INDEX accounts_org ON accounts(org_id, id);

-- The organization's default refund destination (at most one per organization).
CREATE TABLE refund_configs (
  org_id       TEXT PRIMARY KEY REFERENCES organizations(id),
  destination  TEXT NOT NULL,                       -- JSON OrgRefundDestination with defaults applied
  verified_at  TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);

-- One refund plan per failed transaction, recorded in the transaction's status change.
CREATE TABLE refund_plans (
  id                 TEXT PRIMARY KEY,              -- rfp_…
  org_id             TEXT NOT NULL REFERENCES organizations(id),
  transaction_id     TEXT NOT NULL UNIQUE REFERENCES transactions(id),
  state              TEXT NOT NULL CHECK (state IN ('Created', 'Dispatched', 'Paused', 'ManualHandling', 'NoDestination')),
  kind               TEXT NOT NULL CHECK (kind IN ('CryptoRefund', 'FiatReturnAsCrypto', 'ManualFiat', 'None')),
  destination_from   TEXT NOT NULL CHECK (destination_from IN ('transaction', 'default', 'none')),
  destination        TEXT,                          -- JSON {type, network?, address?}
  auto_refund        INTEGER NOT NULL,
  reason             TEXT NOT NULL,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  dispatched_at      TEXT
);
CREATE INDEX refund_plans_org_state ON refund_plans(org_id, state, id);

-- Provider credentials per organization and provider path name; the credentials are sealed.
CREATE TABLE integrations (
  id               TEXT PRIMARY KEY,                -- int_…
  org_id           TEXT NOT NULL REFERENCES organizations(id),
  provider         TEXT NOT NULL,
  kind             TEXT NOT NULL,
  credentials_enc  TEXT NOT NULL,                   -- AES-256-GCM under the master key, AAD names the row
  result           TEXT NOT NULL DEFAULT '{}',      -- JSON, non-secret data the provider returned
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  UNIQUE (org_id, provider)
);

-- Imported transactions carry what the import benchmark summary needs.
ALTER TABLE transactions ADD COLUMN benchmark TEXT;          -- Competitive | InLine | OffMarket | Calibrating | Syncing | Stale
ALTER TABLE transactions ADD COLUMN review_state TEXT;       -- AllClear | NeedReview | ReconciliationIssues
ALTER TABLE transactions ADD COLUMN reconciliation TEXT;     -- Matched | Mismatched | Missing | PfiError
ALTER TABLE transactions ADD COLUMN amount_usd TEXT;         -- decimal string, USD volume
ALTER TABLE transactions ADD COLUMN cost_vs_market_usd TEXT; -- decimal string, USD paid above market (negative: below)
ALTER TABLE transactions ADD COLUMN corridor TEXT;           -- e.g. US-MX
ALTER TABLE transactions ADD COLUMN import_id TEXT;          -- imp_… of the file that brought it
CREATE INDEX transactions_org_origin ON transactions(org_id, origin, created_at);
CREATE INDEX transactions_org_type ON transactions(org_id, type);
CREATE INDEX transactions_org_provider ON transactions(org_id, provider);
CREATE INDEX transactions_org_benchmark ON transactions(org_id, benchmark);
CREATE INDEX transactions_org_review ON transactions(org_id, review_state);
CREATE INDEX transactions_org_reconciliation ON transactions(org_id, reconciliation);
CREATE INDEX transactions_org_country ON transactions(org_id, country);
CREATE INDEX transactions_org_currency ON transactions(org_id, currency);
CREATE INDEX transactions_org_provider_txn ON transactions(org_id, provider_transaction_id);
