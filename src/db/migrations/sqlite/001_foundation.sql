-- Organizations own every other row; API clients hold M2M credentials; token_keys sign access tokens.
CREATE TABLE organizations (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  created_at  TEXT NOT NULL
);

CREATE TABLE api_clients (
  id            TEXT PRIMARY KEY,              -- the clientId callers send
  org_id        TEXT NOT NULL REFERENCES organizations(id),
  name          TEXT,
  secret_hash   TEXT NOT NULL,                 -- scrypt$N$r$p$salt$hash, never the secret
  pii_access    TEXT NOT NULL CHECK (pii_access IN ('all', 'redacted')),
  created_at    TEXT NOT NULL,
  revoked_at    TEXT
);
CREATE INDEX api_clients_org ON api_clients(org_id);

CREATE TABLE token_keys (
  kid             TEXT PRIMARY KEY,
  alg             TEXT NOT NULL,
  public_jwk      TEXT NOT NULL,
  private_enc     TEXT NOT NULL,               -- AES-256-GCM under the master key
  created_at      TEXT NOT NULL,
  retired_at      TEXT
);

-- Transactions of both origins: orchestrated ones move through the status machine and emit events;
-- imported ones come from files and feed the import benchmark summary. Feature migrations add columns.
CREATE TABLE transactions (
  id                      TEXT PRIMARY KEY,
  org_id                  TEXT NOT NULL REFERENCES organizations(id),
  origin                  TEXT NOT NULL CHECK (origin IN ('orchestrated', 'imported')),
  type                    TEXT NOT NULL,
  status                  TEXT NOT NULL,
  amount                  TEXT,                -- decimal string
  currency                TEXT,                -- currency or asset code
  network                 TEXT,                -- NetworkId for crypto legs
  source                  TEXT,                -- JSON
  destination             TEXT,                -- JSON
  refund_destination      TEXT,                -- JSON, per-transaction refund destination
  failure_reason          TEXT,
  provider                TEXT,
  provider_transaction_id TEXT,
  country                 TEXT,
  identity_id             TEXT,
  account_id              TEXT,
  created_at              TEXT NOT NULL,
  updated_at              TEXT NOT NULL
);
CREATE INDEX transactions_org_created ON transactions(org_id, created_at);
CREATE INDEX transactions_org_updated ON transactions(org_id, updated_at);
CREATE INDEX transactions_org_status ON transactions(org_id, status);
