-- The headers of the request each attempt sent, as compact JSON ('{}' when nothing went out); NULL
-- for attempts recorded before borderd kept them, which the attempts view labels as rebuilt.
ALTER TABLE delivery_attempts ADD COLUMN request_headers TEXT;
