/**
 * The `api_clients` table: an organization's machine-to-machine clients, their secret hash, PII
 * access and revocation.
 *
 * @module store/api-clients
 */
import type { Db } from '../db/open.js';

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

export function insertApiClient(db: Db, client: ApiClient, secretHash: string): void {
  db.prepare(
    `INSERT INTO api_clients (id, org_id, name, secret_hash, pii_access, created_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL)`,
  ).run(client.id, client.orgId, client.name, secretHash, client.piiAccess, client.createdAt);
}

export function getApiClientWithHash(db: Db, id: string): { client: ApiClient; secretHash: string } | undefined {
  const row = db.prepare('SELECT * FROM api_clients WHERE id = ?').get(id) as Row | undefined;
  return row && { client: toClient(row), secretHash: row.secret_hash };
}

export function getApiClient(db: Db, id: string): ApiClient | undefined {
  return getApiClientWithHash(db, id)?.client;
}

/**
 * What checking a client's tokens needs to know about it, read on every bearer request and every
 * event-stream heartbeat: its organization and whether it is revoked, not the row with its secret hash.
 */
export function getClientStanding(db: Db, id: string): { id: string; orgId: string; revoked: boolean } | undefined {
  const row = db.prepare('SELECT org_id, revoked_at IS NOT NULL AS revoked FROM api_clients WHERE id = ?').get(id) as
    { org_id: string; revoked: number } | undefined;
  return row && { id, orgId: row.org_id, revoked: row.revoked === 1 };
}

export function listApiClients(db: Db, orgId?: string): ApiClient[] {
  const rows = orgId
    ? db.prepare('SELECT * FROM api_clients WHERE org_id = ? ORDER BY id').all(orgId)
    : db.prepare('SELECT * FROM api_clients ORDER BY id').all();
  return (rows as Row[]).map(toClient);
}

/** Returns false when the client does not exist or was already revoked. */
export function revokeApiClient(db: Db, id: string, at: string): boolean {
  return db.prepare('UPDATE api_clients SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1;
}
