/**
 * The `compliance_checks` table: identity compliance checks, whose changes produce the compliance
 * events.
 *
 * @module store/compliance-checks
 */
import type { Db } from '../db/database.js';
import type { ComplianceCheckEventData, ComplianceResult, ComplianceStatus } from '../verify/events.js';

/** The stored check: the event's data plus its organization. */
export interface ComplianceCheck extends ComplianceCheckEventData {
  orgId: string;
}

interface Row {
  id: string;
  org_id: string;
  identity_id: string;
  status: ComplianceStatus;
  result: ComplianceResult | null;
  reason: string | null;
  created_at: string;
  updated_at: string;
}

const toCheck = (r: Row): ComplianceCheck => ({
  id: r.id,
  orgId: r.org_id,
  identityId: r.identity_id,
  status: r.status,
  result: r.result,
  reason: r.reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function insertComplianceCheck(db: Db, c: ComplianceCheck): Promise<void> {
  await db.run(
    'INSERT INTO compliance_checks (id, org_id, identity_id, status, result, reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [c.id, c.orgId, c.identityId, c.status, c.result, c.reason, c.createdAt, c.updatedAt],
  );
}

export async function getComplianceCheck(db: Db, id: string): Promise<ComplianceCheck | undefined> {
  const row = (await db.get('SELECT * FROM compliance_checks WHERE id = ?', [id])) as Row | undefined;
  return row && toCheck(row);
}

export async function updateComplianceCheck(db: Db, c: ComplianceCheck): Promise<void> {
  await db.run('UPDATE compliance_checks SET status = ?, result = ?, reason = ?, updated_at = ? WHERE id = ?', [
    c.status,
    c.result,
    c.reason,
    c.updatedAt,
    c.id,
  ]);
}
