-- A webhook's delivery order: 'none' (any order), 'resource' (the events of one resource, the
-- event's data.id, in commit order), 'webhook' (every event in commit order).
ALTER TABLE webhooks ADD COLUMN ordering TEXT NOT NULL DEFAULT 'none' CHECK (ordering IN ('none', 'resource', 'webhook'));
-- The resource a delivery's event is about (its data.id; NULL when it has none, which orders it
-- after nothing). Written with the row, so a webhook switched to ordered delivery orders what is
-- already queued.
ALTER TABLE deliveries ADD COLUMN resource_key TEXT;
UPDATE deliveries SET resource_key = (SELECT CAST(e.body -> 'data' ->> 'id' AS TEXT) FROM events e WHERE e.id = deliveries.event_id)
 WHERE state = 'pending';
-- The claim's eligibility: whether an older event of the same resource (or, for a webhook in
-- strict order, any older event) is still pending for the webhook. Partial, so delivered history
-- never enters them.
CREATE INDEX deliveries_pending_resource ON deliveries(webhook_id, resource_key, event_id) WHERE state = 'pending';
CREATE INDEX deliveries_pending_order ON deliveries(webhook_id, event_id) WHERE state = 'pending';
