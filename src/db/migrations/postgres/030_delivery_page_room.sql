-- Room on each page for a new version of every row on it: a claim leases a run of rows that were
-- written together and so share their pages, and each lease is a new version, HOT only where its
-- page has space for it. At 70% full a page had room for the versions of about half its rows, so a
-- claim wrote the other half as non-HOT updates, an entry in each of the table's indexes per row.
-- Pages written from now on keep half their space free; existing pages gain it as they are
-- rewritten (VACUUM FULL or pg_repack), which a migration does not force.
ALTER TABLE deliveries SET (fillfactor = 50);
