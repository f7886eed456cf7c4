-- The serve processes sharing this database, each with the time it last said it was alive, so a
-- process can tell a dead one and take back the deliveries it had claimed.
CREATE TABLE nodes (
  id         TEXT PRIMARY KEY,   -- the process's lease owner id, host:pid:random
  host       TEXT NOT NULL,
  pid        INTEGER NOT NULL,
  started_at INTEGER NOT NULL,   -- ms
  seen_at    INTEGER NOT NULL    -- ms, the last heartbeat
);

-- A periodic job's current run: the node running it and until when no other node may start it.
CREATE TABLE job_runs (
  name        TEXT PRIMARY KEY,
  owner       TEXT NOT NULL,
  lease_until INTEGER NOT NULL   -- ms
);

-- The rows a process holds: few at any time, found by owner at a takeover or a stop.
CREATE INDEX deliveries_claimed ON deliveries(claimed_by) WHERE claimed_by IS NOT NULL;
