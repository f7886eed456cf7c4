-- Facts about this database that belong to no organization. 'master_key_check' holds a value sealed
-- under the master key, so a start with a missing or different key is refused before any secret is
-- read (or a new key is written beside a database that already has secrets).
CREATE TABLE service_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
