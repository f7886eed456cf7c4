-- Reads of inbound notifications follow an index in their own order instead of sorting every
-- matching row each time (borderd never has table statistics to plan with):
-- the admin list filtered by state pages by id;
CREATE INDEX inbound_events_state_id ON inbound_events(state, id);
-- and the decryption queue takes the due rows by (next_attempt_at, id). A requeue (`inbound retry
-- --failed`, an ica mapped) gives thousands of rows one due time, which each pass of 50 then sorted.
DROP INDEX inbound_events_due;
CREATE INDEX inbound_events_due ON inbound_events(state, next_attempt_at, id);
