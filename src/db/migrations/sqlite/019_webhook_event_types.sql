-- A webhook's event-type filter: a JSON array of types, or patterns ending in `*`; NULL takes every
-- type. Events of other types get no delivery row for the webhook at all.
ALTER TABLE webhooks ADD COLUMN event_types TEXT;
-- The deliveries of one webhook newest first (the tenant's delivery list pages by id).
CREATE INDEX deliveries_webhook_id ON deliveries(webhook_id, id);
-- The deliveries of one webhook touched since a time: where its attempts of the last hour and day are.
CREATE INDEX deliveries_webhook_updated ON deliveries(webhook_id, updated_at);
-- The events of one organization of one type, newest first (the event log's type filter).
CREATE INDEX events_org_type_id ON events(org_id, type, id);
