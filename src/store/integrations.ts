/**
 * The `integrations` table: an organization's provider credentials, sealed, one row per provider.
 *
 * @module store/integrations
 */
import type { Db } from '../db/database.js';

export interface IntegrationRow {
  id: string;
  orgId: string;
  provider: string;
  kind: string;
  credentialsEnc: string;
  result: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  org_id: string;
  provider: string;
  kind: string;
  credentials_enc: string;
  result: string;
  created_at: string;
  updated_at: string;
}

const toRow = (r: Row): IntegrationRow => ({
  id: r.id,
  orgId: r.org_id,
  provider: r.provider,
  kind: r.kind,
  credentialsEnc: r.credentials_enc,
  result: JSON.parse(r.result) as Record<string, unknown>,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function getIntegration(db: Db, orgId: string, provider: string): Promise<IntegrationRow | undefined> {
  const r = (await db.get('SELECT * FROM integrations WHERE org_id = ? AND provider = ?', [orgId, provider])) as Row | undefined;
  return r && toRow(r);
}

/** The organization's integrations, one per provider, by provider. */
export async function listIntegrations(db: Db, orgId: string): Promise<IntegrationRow[]> {
  return ((await db.all('SELECT * FROM integrations WHERE org_id = ? ORDER BY provider', [orgId])) as Row[]).map(toRow);
}

/** Insert or replace the organization's credentials for a provider (one row per org and provider). */
export async function upsertIntegration(db: Db, i: IntegrationRow): Promise<IntegrationRow> {
  await db.run(
    `INSERT INTO integrations (id, org_id, provider, kind, credentials_enc, result, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (org_id, provider) DO UPDATE SET kind = excluded.kind, credentials_enc = excluded.credentials_enc, result = excluded.result, updated_at = excluded.updated_at`,
    [i.id, i.orgId, i.provider, i.kind, i.credentialsEnc, JSON.stringify(i.result), i.createdAt, i.updatedAt],
  );
  return (await getIntegration(db, i.orgId, i.provider))!;
}
