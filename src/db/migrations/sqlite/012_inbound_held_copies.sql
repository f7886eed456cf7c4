-- Redelivered copies of a card-network notification that arrived, with other bytes than the stored
-- copy, while the stored copy was not decided yet (queued, unmatched, or waiting for a key). The
-- card network re-encrypts a redelivery, so its bytes differ even when it is genuine. Held here
-- until the stored copy is decided: when it fails for its content (altered), the oldest held copy
-- takes its place and is decrypted; when it decrypts, the held copies are deleted (the event was
-- processed). Without this table such a redelivery was dropped as a duplicate, and a stored copy
-- that turned out altered left nothing genuine to decrypt.
CREATE TABLE inbound_event_held_copies (
  inbound_id          TEXT NOT NULL REFERENCES inbound_events(id) ON DELETE CASCADE,
  seq                 INTEGER NOT NULL,          -- arrival order among the held copies of one notification
  raw_body            TEXT NOT NULL,             -- the exact JSON bytes of that copy
  event_type          TEXT NOT NULL,
  event_created_date  TEXT NOT NULL,
  received_at         TEXT NOT NULL,
  PRIMARY KEY (inbound_id, seq)
);
-- When the copy being processed arrived, once it is not the first copy (a replacement or a promoted
-- held copy); NULL for the first copy, whose arrival is received_at. Kept with a replaced copy.
ALTER TABLE inbound_events ADD COLUMN copy_received_at TEXT;
-- A copy that replaced another before this column existed arrived when it replaced it.
UPDATE inbound_events
SET copy_received_at = (SELECT MAX(replaced_at) FROM inbound_event_replaced_copies r WHERE r.inbound_id = inbound_events.id)
WHERE id IN (SELECT inbound_id FROM inbound_event_replaced_copies);
