-- Which default refund destination a plan was made from. refund_configs.version counts the defaults
-- an organization has set (a new POST /v1/refunds/config adds one; a re-confirmation does not), and a
-- plan whose destination came from the default records that version: re-confirming the default
-- releases only the Paused plans made from it, never those of a default it replaced.
ALTER TABLE refund_configs ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE refund_plans ADD COLUMN default_version INTEGER;
-- Plans recorded before this migration: attributed to the current default when their destination is
-- one the current default gives (same type, and for Address the same network and address); the rest
-- (made from a replaced default) stay unattributed and are never released by a re-confirmation.
UPDATE refund_plans SET default_version = 1
 WHERE destination_from = 'default'
   AND EXISTS (
     SELECT 1 FROM refund_configs c
      WHERE c.org_id = refund_plans.org_id
        AND json_extract(c.destination, '$.type') = json_extract(refund_plans.destination, '$.type')
        AND (json_extract(refund_plans.destination, '$.type') <> 'Address'
             OR EXISTS (SELECT 1 FROM json_each(c.destination, '$.addresses') a
                         WHERE json_extract(a.value, '$.network') = json_extract(refund_plans.destination, '$.network')
                           AND json_extract(a.value, '$.address') = json_extract(refund_plans.destination, '$.address'))));

-- Imported transactions are deduplicated on (organization, provider, providerTransactionId): the
-- import checks inside its write transaction, and this index makes a second copy impossible even
-- for a writer that skips the check. A missing provider counts as '' (NULLs would never collide).
-- If two concurrent imports already double-counted, this fails; find the pairs with
--   SELECT org_id, provider, provider_transaction_id, COUNT(*) FROM transactions
--    WHERE origin = 'imported' AND provider_transaction_id IS NOT NULL GROUP BY 1, 2, 3 HAVING COUNT(*) > 1;
CREATE UNIQUE INDEX transactions_imported_provider_txn ON transactions(org_id, COALESCE(provider, ''), provider_transaction_id)
  WHERE origin = 'imported' AND provider_transaction_id IS NOT NULL;
