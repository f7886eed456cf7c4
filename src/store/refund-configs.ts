import type { Db } from '../db/open.js';
import type { OrgRefundDestination } from '../domain/refund-destination.js';

export interface StoredRefundConfig {
  orgId: string;
  destination: OrgRefundDestination;
  verifiedAt: string;
  updatedAt: string;
}

interface Row {
  org_id: string;
  destination: string;
  verified_at: string;
  updated_at: string;
}

export function getRefundConfig(db: Db, orgId: string): StoredRefundConfig | undefined {
  const r = db.prepare('SELECT * FROM refund_configs WHERE org_id = ?').get(orgId) as Row | undefined;
  return r && { orgId: r.org_id, destination: JSON.parse(r.destination) as OrgRefundDestination, verifiedAt: r.verified_at, updatedAt: r.updated_at };
}

export function upsertRefundConfig(db: Db, c: StoredRefundConfig): void {
  db.prepare(
    `INSERT INTO refund_configs (org_id, destination, verified_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (org_id) DO UPDATE SET destination = excluded.destination, verified_at = excluded.verified_at, updated_at = excluded.updated_at`,
  ).run(c.orgId, JSON.stringify(c.destination), c.verifiedAt, c.updatedAt);
}

export function markRefundConfigVerified(db: Db, orgId: string, at: string): void {
  db.prepare('UPDATE refund_configs SET verified_at = ?, updated_at = ? WHERE org_id = ?').run(at, at, orgId);
}
