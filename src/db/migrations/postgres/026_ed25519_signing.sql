-- Standard Webhooks' asymmetric signature (webhook-signature v1a, Ed25519). Each organization has
-- its own Ed25519 keys beside its RSA ones, published in its JWKS; the newest unretired one signs,
-- and one a rotation retired stays published for the overlap window. Private halves are sealed
-- under the master key like every secret.
CREATE TABLE webhook_ed25519_keys (
  id          TEXT COLLATE "C" PRIMARY KEY,
  org_id      TEXT COLLATE "C" NOT NULL REFERENCES organizations(id),
  public_key  TEXT COLLATE "C" NOT NULL,
  private_enc TEXT COLLATE "C" NOT NULL,
  created_at  TEXT COLLATE "C" NOT NULL,
  retired_at  TEXT COLLATE "C"
);
CREATE INDEX webhook_ed25519_keys_org ON webhook_ed25519_keys(org_id, created_at);

-- The webhooks whose deliveries carry a v1a signature beside v1 (opt-in per webhook).
CREATE TABLE webhook_v1a (
  webhook_id  TEXT COLLATE "C" PRIMARY KEY REFERENCES webhooks(id),
  created_at  TEXT COLLATE "C" NOT NULL
);
