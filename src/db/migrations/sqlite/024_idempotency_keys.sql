-- The answers kept for POSTs sent with an Idempotency-Key, one per caller and key, written in the
-- transaction of the change they answer for (docs/api.md, "Idempotency-Key").
CREATE TABLE idempotency_keys (
  scope       TEXT NOT NULL,      -- the caller: 'operator', or 'client:<org id>:<client id>'
  key         TEXT NOT NULL,      -- the Idempotency-Key as sent
  fingerprint TEXT NOT NULL,      -- SHA-256 of the method, path and body the key was first used with
  status      INTEGER NOT NULL,   -- the kept answer: its status, headers (JSON) and body (JSON text, or NULL)
  headers     TEXT NOT NULL,
  body        TEXT,
  created_at  INTEGER NOT NULL,   -- ms
  expires_at  INTEGER NOT NULL,   -- ms; from then on the key is free again and retention deletes the row
  PRIMARY KEY (scope, key)
);

-- Retention deletes by age.
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
