-- PostgreSQL records the transaction that wrote each event, the event stream's commit order there.
-- SQLite commits one write transaction at a time, so event ids are its commit order: every row keeps
-- 0, and the column exists so both engines have the same columns (borderd db copy).
ALTER TABLE events ADD COLUMN tx_id INTEGER NOT NULL DEFAULT 0;
