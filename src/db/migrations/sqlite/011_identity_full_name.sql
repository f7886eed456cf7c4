-- The full name the name filter matches is "first last" exactly, or '' when either name is missing
-- (src/store/identities.ts, fullNameLc). It used to be trimmed, so a first name stored with a leading
-- space gave a full name that no longer started with it; with the exact form, a prefix without a
-- space can skip the full-name column. Only rows whose stored value differs are written.
UPDATE identities
SET full_name_lc = CASE WHEN first_name_lc <> '' AND last_name_lc <> '' THEN first_name_lc || ' ' || last_name_lc ELSE '' END
WHERE full_name_lc IS NOT CASE WHEN first_name_lc <> '' AND last_name_lc <> '' THEN first_name_lc || ' ' || last_name_lc ELSE '' END;
