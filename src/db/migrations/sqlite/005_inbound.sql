-- Card-network notifications as received. The raw body is kept byte for byte; decryption runs later
-- from this row. state: received (queued for decryption) | decrypted | failed (dead letter, see
-- failure_reason) | unmatched (ica maps to no organization yet).
CREATE TABLE inbound_events (
  id                  TEXT PRIMARY KEY,          -- inb_…, sortable by arrival
  event_id            TEXT NOT NULL UNIQUE,      -- the card network's eventId: duplicates are ignored
  event_type          TEXT NOT NULL,
  event_created_date  TEXT NOT NULL,
  ica                 TEXT NOT NULL,
  org_id              TEXT REFERENCES organizations(id),
  raw_body            TEXT NOT NULL,             -- the exact JSON bytes the card network sent
  state               TEXT NOT NULL CHECK (state IN ('received', 'decrypted', 'failed', 'unmatched')),
  attempts            INTEGER NOT NULL DEFAULT 0,
  next_attempt_at     TEXT,                      -- when state = received
  failure_code        TEXT,
  failure_reason      TEXT,
  kid                 TEXT,                      -- the JWE kid that decrypted (or was asked for)
  payload_enc         TEXT,                      -- decrypted payload sealed under the master key
  received_at         TEXT NOT NULL,
  decrypted_at        TEXT,
  updated_at          TEXT NOT NULL
);
CREATE INDEX inbound_events_due ON inbound_events(state, next_attempt_at);
CREATE INDEX inbound_events_type ON inbound_events(event_type, id);
CREATE INDEX inbound_events_ica ON inbound_events(ica, state);

-- ica -> organization mappings made through the admin API or CLI (config adds its own on top).
CREATE TABLE inbound_ica_organizations (
  ica         TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL REFERENCES organizations(id),
  created_at  TEXT NOT NULL
);

-- The organization's card-network decryption keys. Several may be active at once so a rotation has
-- no gap; the JWE kid picks one.
CREATE TABLE card_network_keys (
  id           TEXT PRIMARY KEY,                 -- cnk_…
  org_id       TEXT NOT NULL REFERENCES organizations(id),
  kid          TEXT NOT NULL,                    -- lowercase hex SHA-256 of the SPKI DER, unless imported with an explicit kid
  public_pem   TEXT NOT NULL,
  private_enc  TEXT NOT NULL,                    -- PKCS#8 PEM sealed with AES-256-GCM under the master key
  source       TEXT NOT NULL CHECK (source IN ('generated', 'imported')),
  created_at   TEXT NOT NULL,
  UNIQUE (org_id, kid)
);
