-- The transaction that wrote each event (pg_current_xact_id(), as a number): the event stream reads
-- an organization's events in (tx_id, id) order and only below the oldest transaction still running,
-- so what it has sent is never followed by an event committed before it (docs/events.md). Events
-- written before this column count as written by transaction 0, ahead of every later one.
ALTER TABLE events ADD COLUMN tx_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE events ALTER COLUMN tx_id SET DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX events_org_tx ON events(org_id, tx_id, id);
