-- The dense-prefix walk of identities (ids in order, filters tested on the index entry) also tests
-- an email prefix without reading the row: a dense email prefix walks here instead of driving by
-- the email range, which sorted every match for each page.
DROP INDEX identities_org_id_names;
CREATE INDEX identities_org_id_names ON identities(org_id, id, type, first_name_lc, last_name_lc, full_name_lc, email_lc);
