-- Card-network notifications: deduplicated per (eventId, ica), so one organization's eventId no
-- longer drops another's notification; the sender's address kept, so what one unmatched sender may
-- store can be capped; and an index for retention, which deletes old rows by state and arrival.
ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_event_id_key;
ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_event_id_ica_key UNIQUE (event_id, ica);
ALTER TABLE inbound_events ADD COLUMN sender TEXT COLLATE "C";
CREATE INDEX inbound_events_sender ON inbound_events(sender, state);
CREATE INDEX inbound_events_state_received ON inbound_events(state, received_at);
