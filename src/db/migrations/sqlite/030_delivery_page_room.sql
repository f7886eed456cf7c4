-- PostgreSQL leaves half of each page of deliveries free for the new versions of its rows. SQLite
-- rewrites a row in place and has nothing to set.
SELECT 1;
