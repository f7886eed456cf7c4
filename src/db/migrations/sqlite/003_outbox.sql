-- Webhook endpoints of an organization. Deleted ones are kept (deleted_at) so their deliveries and
-- attempts stay readable; every API query filters them out.
CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,                -- whk_…
  org_id      TEXT NOT NULL REFERENCES organizations(id),
  url         TEXT NOT NULL,
  enabled     INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  disabled_reason TEXT,                        -- why borderd disabled it (last attempt failed, 410 Gone); NULL when a caller did
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  deleted_at  TEXT
);
CREATE INDEX webhooks_org ON webhooks(org_id, id);

-- One row per (event, webhook): the outbox. state moves pending -> delivered | failed | skipped | cancelled;
-- a replay puts it back to pending. Times used for scheduling are integers (ms since the epoch).
CREATE TABLE deliveries (
  id              TEXT PRIMARY KEY,            -- dlv_…
  event_id        TEXT NOT NULL REFERENCES events(id),
  webhook_id      TEXT NOT NULL REFERENCES webhooks(id),
  org_id          TEXT NOT NULL REFERENCES organizations(id),
  state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'skipped', 'cancelled')),
  attempts        INTEGER NOT NULL DEFAULT 0,  -- every attempt ever made (x-delivery-attempt is attempts + 1)
  step            INTEGER NOT NULL DEFAULT 0,  -- attempts made in the current retry cycle (reset by a replay)
  next_attempt_at INTEGER NOT NULL,
  claimed_by      TEXT,
  lease_until     INTEGER,
  last_status     INTEGER,
  last_error      TEXT,
  delivered_at    TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  UNIQUE (event_id, webhook_id)
);
CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at);
CREATE INDEX deliveries_webhook_state ON deliveries(webhook_id, state);
CREATE INDEX deliveries_org_state ON deliveries(org_id, state, id);

-- Every attempt, kept: when, how long, what came back.
CREATE TABLE delivery_attempts (
  id            TEXT PRIMARY KEY,              -- att_…
  delivery_id   TEXT NOT NULL REFERENCES deliveries(id),
  attempt       INTEGER NOT NULL,
  started_at    TEXT NOT NULL,
  duration_ms   INTEGER NOT NULL,
  status_code   INTEGER,
  error         TEXT,
  response_body TEXT,                          -- first 1 KiB
  key_id        TEXT
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts(delivery_id, attempt);

-- Signatures made once per (event, key) and reused across endpoints and retries.
CREATE TABLE event_signatures (
  event_id   TEXT NOT NULL REFERENCES events(id),
  key_id     TEXT NOT NULL,
  signature  TEXT NOT NULL,
  PRIMARY KEY (event_id, key_id)
);

-- Producers of the identity compliance and virtual account events (operator surface).
CREATE TABLE compliance_checks (
  id          TEXT PRIMARY KEY,                -- cmp_…
  org_id      TEXT NOT NULL REFERENCES organizations(id),
  identity_id TEXT NOT NULL,
  status      TEXT NOT NULL,
  result      TEXT,
  reason      TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX compliance_checks_org ON compliance_checks(org_id, id);

CREATE TABLE virtual_accounts (
  id             TEXT PRIMARY KEY,             -- vac_…
  org_id         TEXT NOT NULL REFERENCES organizations(id),
  identity_id    TEXT,
  account_id     TEXT,
  currency       TEXT,
  status         TEXT NOT NULL,
  failure_reason TEXT,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE INDEX virtual_accounts_org ON virtual_accounts(org_id, id);
