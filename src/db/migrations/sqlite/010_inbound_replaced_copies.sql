-- Copies of a card-network notification that failed for their content (altered, malformed) and were
-- replaced by a redelivered copy of the same eventId. The replaced bytes are kept for forensics; the
-- inbound_events row always holds the copy being processed.
CREATE TABLE inbound_event_replaced_copies (
  inbound_id          TEXT NOT NULL REFERENCES inbound_events(id) ON DELETE CASCADE,
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
