-- The W3C traceparent of the `inbound intake` span that stored a notification's copy (tracing.otlpEndpoint
-- set): each decryption attempt's span is a child of it, however much later and in whichever process.
ALTER TABLE inbound_events ADD COLUMN trace_context TEXT;
