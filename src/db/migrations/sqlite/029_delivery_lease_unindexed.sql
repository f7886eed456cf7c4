-- A lease is held in columns no index covers, so a claim and a renewal change no index entry: on
-- PostgreSQL they are HOT updates, on SQLite they leave every B-tree alone. The rows a process
-- holds are pending rows, found through the pending rows' own index when it stops or is taken over
-- (store/delivery-claims.ts); the dead processes themselves are found in the nodes table.
DROP INDEX deliveries_claimed;
