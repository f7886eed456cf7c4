-- The dispatcher's claim reads, per webhook, its oldest due pending rows: an index range scan on
-- (webhook_id, state, next_attempt_at) costs the rows it returns, not the whole backlog. It also
-- serves every (webhook_id, state) lookup, so the older two-column index goes.
CREATE INDEX deliveries_webhook_due ON deliveries(webhook_id, state, next_attempt_at, id);
DROP INDEX deliveries_webhook_state;
