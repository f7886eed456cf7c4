-- Card-network notifications: deduplicated per (eventId, ica), so one organization's eventId no
-- longer drops another's notification; the sender's address kept, so what one unmatched sender may
-- store can be capped; and an index for retention, which deletes old rows by state and arrival.
-- SQLite cannot drop a column's UNIQUE, so inbound_events is rebuilt. Its two child tables are
-- rebuilt with it: dropping the old parent would otherwise delete their rows (ON DELETE CASCADE).
CREATE TABLE inbound_events_new (
  id                  TEXT PRIMARY KEY,          -- inb_…, sortable by arrival
  event_id            TEXT NOT NULL,             -- the card network's eventId
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
  updated_at          TEXT NOT NULL,
  copy_received_at    TEXT,
  sender              TEXT,                      -- the first copy's source address (an IPv6 one by its /64); NULL before 018
  UNIQUE (event_id, ica)                         -- a second copy for the same ica is a redelivery
);
INSERT INTO inbound_events_new (id, event_id, event_type, event_created_date, ica, org_id, raw_body, state, attempts, next_attempt_at,
    failure_code, failure_reason, kid, payload_enc, received_at, decrypted_at, updated_at, copy_received_at)
  SELECT id, event_id, event_type, event_created_date, ica, org_id, raw_body, state, attempts, next_attempt_at,
    failure_code, failure_reason, kid, payload_enc, received_at, decrypted_at, updated_at, copy_received_at
  FROM inbound_events;

CREATE TABLE inbound_event_replaced_copies_new (
  inbound_id          TEXT NOT NULL REFERENCES inbound_events_new(id) ON DELETE CASCADE,
  seq                 INTEGER NOT NULL,          -- 1 for the first copy replaced, 2 for the next, …
  raw_body            TEXT NOT NULL,             -- the exact JSON bytes of that copy
  event_type          TEXT NOT NULL,
  event_created_date  TEXT NOT NULL,
  failure_code        TEXT NOT NULL,
  failure_reason      TEXT,
  kid                 TEXT,
  attempts            INTEGER NOT NULL,
  received_at         TEXT NOT NULL,             -- when that copy arrived
  replaced_at         TEXT NOT NULL,
  PRIMARY KEY (inbound_id, seq)
);
INSERT INTO inbound_event_replaced_copies_new SELECT inbound_id, seq, raw_body, event_type, event_created_date, failure_code,
  failure_reason, kid, attempts, received_at, replaced_at FROM inbound_event_replaced_copies;

CREATE TABLE inbound_event_held_copies_new (
  inbound_id          TEXT NOT NULL REFERENCES inbound_events_new(id) ON DELETE CASCADE,
  seq                 INTEGER NOT NULL,          -- arrival order among the held copies of one notification
  raw_body            TEXT NOT NULL,             -- the exact JSON bytes of that copy
  event_type          TEXT NOT NULL,
  event_created_date  TEXT NOT NULL,
  received_at         TEXT NOT NULL,
  PRIMARY KEY (inbound_id, seq)
);
INSERT INTO inbound_event_held_copies_new SELECT inbound_id, seq, raw_body, event_type, event_created_date, received_at
  FROM inbound_event_held_copies;

DROP TABLE inbound_event_replaced_copies;
DROP TABLE inbound_event_held_copies;
DROP TABLE inbound_events;
ALTER TABLE inbound_events_new RENAME TO inbound_events;
ALTER TABLE inbound_event_replaced_copies_new RENAME TO inbound_event_replaced_copies;
ALTER TABLE inbound_event_held_copies_new RENAME TO inbound_event_held_copies;

CREATE INDEX inbound_events_due ON inbound_events(state, next_attempt_at, id);
CREATE INDEX inbound_events_type ON inbound_events(event_type, id);
CREATE INDEX inbound_events_ica ON inbound_events(ica, state);
CREATE INDEX inbound_events_state_id ON inbound_events(state, id);
-- What one address has stored unmatched (the cap), and retention's walk by state and arrival.
CREATE INDEX inbound_events_sender ON inbound_events(sender, state);
CREATE INDEX inbound_events_state_received ON inbound_events(state, received_at);
