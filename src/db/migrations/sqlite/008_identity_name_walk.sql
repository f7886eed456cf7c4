-- A dense name prefix is listed by walking the organization's identities in id order and testing
-- the three lowercase names (and the type) on each entry. With them in the index the walk reads a
-- table row only for a match (SQLite defers the table seek until a column outside the index is needed).
CREATE INDEX identities_org_id_names ON identities(org_id, id, type, first_name_lc, last_name_lc, full_name_lc);
