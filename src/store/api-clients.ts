/**
 * The `api_clients` table: an organization's machine-to-machine clients, their secret hash, PII
 * access and revocation.
 *
 * @module store/api-clients
 */
import type { Db } from '../db/database.js';

export type PiiAccess = 'all' | 'redacted';

export interface ApiClient {
  id: string;
  orgId: string;
  name: string | null;
  piiAccess: PiiAccess;
  createdAt: string;
  revokedAt: string | null;
}

interface Row {
  id: string;
  org_id: string;
  name: string | null;
  secret_hash: string;
  pii_access: PiiAccess;
  created_at: string;
  revoked_at: string | null;
}

const toClient = (r: Row): ApiClient => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  piiAccess: r.pii_access,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export async function insertApiClient(db: Db, client: ApiClient, secretHash: string): Promise<void> {
  await db.run(
    `INSERT INTO api_clients (id, org_id, name, secret_hash, pii_access, created_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL)`,
    [client.id, client.orgId, client.name, secretHash, client.piiAccess, client.createdAt],
  );
}

export async function getApiClientWithHash(db: Db, id: string): Promise<{ client: ApiClient; secretHash: string } | undefined> {
  const row = (await db.get('SELECT * FROM api_clients WHERE id = ?', [id])) as Row | undefined;
  return row && { client: toClient(row), secretHash: row.secret_hash };
}

export async function getApiClient(db: Db, id: string): Promise<ApiClient | undefined> {
  return (await getApiClientWithHash(db, id))?.client;
}

/**
 * What checking a client's tokens needs to know about it, read on every bearer request and every
 * event-stream heartbeat: its organization and whether it is revoked, not the row with its secret hash.
 */
export async function getClientStanding(db: Db, id: string): Promise<{ id: string; orgId: string; revoked: boolean } | undefined> {
  const row = (await db.get('SELECT org_id, CASE WHEN revoked_at IS NULL THEN 0 ELSE 1 END AS revoked FROM api_clients WHERE id = ?', [
    id,
  ])) as { org_id: string; revoked: number } | undefined;
  return row && { id, orgId: row.org_id, revoked: row.revoked === 1 };
}

export async function listApiClients(db: Db, orgId?: string): Promise<ApiClient[]> {
  const rows = orgId
    ? await db.all('SELECT * FROM api_clients WHERE org_id = ? ORDER BY id', [orgId])
    : await db.all('SELECT * FROM api_clients ORDER BY id');
  return (rows as Row[]).map(toClient);
}

/** Returns false when the client does not exist or was already revoked. */
export async function revokeApiClient(db: Db, id: string, at: string): Promise<boolean> {
  return (await db.run('UPDATE api_clients SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, id])) === 1;
}
