-- Every event, with its body serialized once: deliveries, replays and the event stream send these bytes.
CREATE TABLE events (
  id          TEXT PRIMARY KEY,                -- evt_…, sortable by creation
  org_id      TEXT NOT NULL REFERENCES organizations(id),
  type        TEXT NOT NULL,
  body        TEXT NOT NULL,                   -- the exact JSON that is signed and sent
  created_at  TEXT NOT NULL
);
CREATE INDEX events_org_id ON events(org_id, id);

-- The organization's RSA key pairs for x-signature. The newest unretired one signs; rotation retires the old.
CREATE TABLE webhook_keys (
  id           TEXT PRIMARY KEY,               -- wsk_…, also sent as x-signature-key-id
  org_id       TEXT NOT NULL REFERENCES organizations(id),
  public_pem   TEXT NOT NULL,
  private_enc  TEXT NOT NULL,                  -- PKCS#8 PEM sealed with AES-256-GCM under the master key
  created_at   TEXT NOT NULL,
  retired_at   TEXT
);
CREATE INDEX webhook_keys_org ON webhook_keys(org_id, created_at);
