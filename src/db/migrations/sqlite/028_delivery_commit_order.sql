-- Ordered delivery follows commit order, (event_tx, event_id). SQLite commits one write
-- transaction at a time and numbers each event after the newest committed one, so event ids are
-- its commit order: event_tx stays 0, as events.tx_id does (migration 025), and exists so both
-- engines have the same columns.
ALTER TABLE deliveries ADD COLUMN event_tx INTEGER NOT NULL DEFAULT 0;
-- Whether the row takes its place in an ordered webhook's line: 0 for a test event's delivery,
-- which neither waits for the real ones nor holds them up.
ALTER TABLE deliveries ADD COLUMN in_line INTEGER NOT NULL DEFAULT 1;
UPDATE deliveries SET in_line = 0 WHERE state = 'pending' AND event_id IN (SELECT id FROM events WHERE type LIKE 'test.%');
-- The lines in commit order, pending rows in a line only.
DROP INDEX deliveries_pending_resource;
DROP INDEX deliveries_pending_order;
CREATE INDEX deliveries_pending_resource ON deliveries(webhook_id, resource_key, event_tx, event_id) WHERE state = 'pending' AND in_line = 1;
CREATE INDEX deliveries_pending_order ON deliveries(webhook_id, event_tx, event_id) WHERE state = 'pending' AND in_line = 1;
-- A webhook's pending test deliveries (in no line), which a strict-order claim takes beside the head.
CREATE INDEX deliveries_pending_unlined ON deliveries(webhook_id, next_attempt_at) WHERE state = 'pending' AND in_line = 0;
