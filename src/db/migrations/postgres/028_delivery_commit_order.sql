-- Ordered delivery follows commit order. A delivery row is written in its event's transaction, so
-- event_tx takes that transaction's id by default (events.tx_id, migration 025); a requeue copies
-- the event's. Ids alone are not commit order on PostgreSQL: a node whose clock is behind numbers a
-- later event lower. Rows written before this column take their event's.
ALTER TABLE deliveries ADD COLUMN event_tx BIGINT NOT NULL DEFAULT 0;
UPDATE deliveries SET event_tx = e.tx_id FROM events e WHERE e.id = deliveries.event_id AND deliveries.state = 'pending';
ALTER TABLE deliveries ALTER COLUMN event_tx SET DEFAULT (pg_current_xact_id()::text::bigint);
-- Whether the row takes its place in an ordered webhook's line: 0 for a test event's delivery,
-- which neither waits for the real ones nor holds them up.
ALTER TABLE deliveries ADD COLUMN in_line SMALLINT NOT NULL DEFAULT 1;
UPDATE deliveries SET in_line = 0 WHERE state = 'pending' AND event_id IN (SELECT id FROM events WHERE type LIKE 'test.%');
-- The lines in commit order, pending rows in a line only.
DROP INDEX deliveries_pending_resource;
DROP INDEX deliveries_pending_order;
CREATE INDEX deliveries_pending_resource ON deliveries(webhook_id, resource_key, event_tx, event_id) WHERE state = 'pending' AND in_line = 1;
CREATE INDEX deliveries_pending_order ON deliveries(webhook_id, event_tx, event_id) WHERE state = 'pending' AND in_line = 1;
-- A webhook's pending test deliveries (in no line), which a strict-order claim takes beside the head.
CREATE INDEX deliveries_pending_unlined ON deliveries(webhook_id, next_attempt_at) WHERE state = 'pending' AND in_line = 0;
