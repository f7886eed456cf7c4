-- The headers of the request each attempt sent, as compact JSON ('{}' when nothing went out); NULL
-- for attempts recorded before borderd kept them, which the attempts view labels as rebuilt.
ALTER TABLE delivery_attempts ADD COLUMN request_headers TEXT;
-- Test events (type `test.…`) have a retention of their own: the job finds them by age without
-- walking every event, and only test events pay for this index on insert.
CREATE INDEX events_test_created ON events(created_at) WHERE type LIKE 'test.%';
