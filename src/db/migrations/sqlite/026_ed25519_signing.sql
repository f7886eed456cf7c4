-- Standard Webhooks' asymmetric signature (webhook-signature v1a, Ed25519). Each organization has
-- its own Ed25519 keys beside its RSA ones, published in its JWKS; the newest unretired one signs,
-- and one a rotation retired stays published for the overlap window. Private halves are sealed
-- under the master key like every secret.
CREATE TABLE webhook_ed25519_keys (
  id          TEXT PRIMARY KEY,                 -- wek_…
  org_id      TEXT NOT NULL REFERENCES organizations(id),
  public_key  TEXT NOT NULL,                    -- base64url of the 32 key bytes (the JWK's x)
  private_enc TEXT NOT NULL,                    -- PKCS#8 PEM sealed with AES-256-GCM under the master key
  created_at  TEXT NOT NULL,
  retired_at  TEXT                              -- NULL: current
);
CREATE INDEX webhook_ed25519_keys_org ON webhook_ed25519_keys(org_id, created_at);

-- The webhooks whose deliveries carry a v1a signature beside v1 (opt-in per webhook).
CREATE TABLE webhook_v1a (
  webhook_id  TEXT PRIMARY KEY REFERENCES webhooks(id),
  created_at  TEXT NOT NULL
);
