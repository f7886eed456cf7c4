-- Each webhook's Standard Webhooks secrets (webhook-signature v1, HMAC-SHA256). The current one has
-- no expires_at; a rotation gives the one it replaces an expires_at (now + the overlap window), and
-- until then both sign. Sealed under the master key like every secret.
CREATE TABLE webhook_secrets (
  id          TEXT PRIMARY KEY,                 -- wss_…
  webhook_id  TEXT NOT NULL REFERENCES webhooks(id),
  org_id      TEXT NOT NULL REFERENCES organizations(id),
  secret_enc  TEXT NOT NULL,                    -- the whsec_… text sealed with AES-256-GCM under the master key
  created_at  TEXT NOT NULL,
  expires_at  TEXT                              -- NULL: current; else signs until then
);
CREATE INDEX webhook_secrets_webhook ON webhook_secrets(webhook_id, created_at);
