-- When a webhook was disabled, beside why (disabled_reason): operators see both in `borderd webhooks
-- list` and the admin API. A webhook disabled before reasons were kept for every disable gets its
-- last change as the time and a reason that says what is known.
ALTER TABLE webhooks ADD COLUMN disabled_at TEXT COLLATE "C";
UPDATE webhooks SET disabled_at = updated_at WHERE enabled = 0 AND deleted_at IS NULL;
UPDATE webhooks SET disabled_reason = 'disabled through the API or the CLI' WHERE enabled = 0 AND deleted_at IS NULL AND disabled_reason IS NULL;

-- The operator organization (at most one): borderd's own, whose one webhook is alerts.webhookUrl.
-- Operator alerts are its events, so they are signed, retried and recorded like every delivery. It
-- has no API clients and is left out of organization lists and counts.
ALTER TABLE organizations ADD COLUMN operator INTEGER NOT NULL DEFAULT 0 CHECK (operator IN (0, 1));
CREATE UNIQUE INDEX organizations_operator ON organizations(operator) WHERE operator = 1;

-- The W3C traceparent of the span that wrote an event (tracing.otlpEndpoint set): each delivery
-- attempt's span continues it, and its traceparent header links the receiver's trace to the event's.
ALTER TABLE events ADD COLUMN trace_context TEXT COLLATE "C";
