-- Each webhook's Standard Webhooks secrets (webhook-signature v1, HMAC-SHA256). The current one has
-- no expires_at; a rotation gives the one it replaces an expires_at (now + the overlap window), and
-- until then both sign. Sealed under the master key like every secret.
CREATE TABLE webhook_secrets (
  id          TEXT COLLATE "C" PRIMARY KEY,
  webhook_id  TEXT COLLATE "C" NOT NULL REFERENCES webhooks(id),
  org_id      TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  secret_enc  TEXT COLLATE "C" NOT NULL,
  created_at  TEXT COLLATE "C" NOT NULL,
  expires_at  TEXT COLLATE "C"
);
CREATE INDEX webhook_secrets_webhook ON webhook_secrets(webhook_id, created_at);
