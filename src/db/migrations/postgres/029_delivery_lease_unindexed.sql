-- A lease is held in columns no index covers, so a claim and a renewal change no index entry and
-- are HOT updates: the new row version goes on the same page and no index is written. The rows a
-- process holds are pending rows, found through the pending rows' own index when it stops or is
-- taken over (store/delivery-claims.ts); the dead processes themselves are found in the nodes table.
DROP INDEX deliveries_claimed;
-- Room on each page for the new versions of its rows (a claim, a renewal, a result each write one):
-- a HOT update needs its page to have space. Pages written from now on keep 30% free; existing
-- pages gain it as they are rewritten (VACUUM FULL or pg_repack), which a migration does not force.
ALTER TABLE deliveries SET (fillfactor = 70);
-- No statistics of state: the planner takes `state = ?` at its default share of the table instead
-- of the share the last ANALYZE saw, which may have been no pending row at all (a drained queue, or
-- a backlog written while its webhook was off) and so one row. On that estimate it finds a row by
-- (state, next_attempt_at) rather than by its primary key or (webhook_id, state, …), and walks
-- every pending row of a backlog that came since, at each read before a send and each claim.
ALTER TABLE deliveries ALTER COLUMN state SET STATISTICS 0;
