/**
 * The `refund_configs` table: an organization's default refund destination, and the version that
 * counts its replacements.
 *
 * @module store/refund-configs
 */
import type { Db } from '../db/database.js';
import type { OrgRefundDestination } from '../domain/refund-destination.js';

export interface StoredRefundConfig {
  orgId: string;
  destination: OrgRefundDestination;
  verifiedAt: string;
  updatedAt: string;
  /** Counts the defaults the organization has set: 1 for the first, +1 for each replacement (not for a re-confirmation). */
  version: number;
}

interface Row {
  org_id: string;
  destination: string;
  verified_at: string;
  updated_at: string;
  version: number;
}

export async function getRefundConfig(db: Db, orgId: string): Promise<StoredRefundConfig | undefined> {
  const r = (await db.get('SELECT * FROM refund_configs WHERE org_id = ?', [orgId])) as Row | undefined;
  return (
    r && {
      orgId: r.org_id,
      destination: JSON.parse(r.destination) as OrgRefundDestination,
      verifiedAt: r.verified_at,
      updatedAt: r.updated_at,
      version: r.version,
    }
  );
}

/** Sets the default; replacing one moves its version on by one. Answers the stored version. */
export async function upsertRefundConfig(db: Db, c: Omit<StoredRefundConfig, 'version'>): Promise<number> {
  const r = (await db.get(
    `INSERT INTO refund_configs (org_id, destination, verified_at, updated_at, version) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT (org_id) DO UPDATE SET destination = excluded.destination, verified_at = excluded.verified_at, updated_at = excluded.updated_at,
         version = refund_configs.version + 1
       RETURNING version`,
    [c.orgId, JSON.stringify(c.destination), c.verifiedAt, c.updatedAt],
  )) as { version: number };
  return r.version;
}

export async function markRefundConfigVerified(db: Db, orgId: string, at: string): Promise<void> {
  await db.run('UPDATE refund_configs SET verified_at = ?, updated_at = ? WHERE org_id = ?', [at, at, orgId]);
}
