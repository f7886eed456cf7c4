import type { Db } from '../db/open.js';

export type IdentityType = 'Personal' | 'Business';

export interface Identity {
  id: string;
  type: IdentityType;
  deleted: boolean;
  hasComplianceChecks: boolean;
  data: Record<string, unknown>;
}

export interface IdentityRow extends Identity {
  orgId: string;
  createdAt: string;
}

interface Row {
  id: string;
  org_id: string;
  type: IdentityType;
  deleted: number;
  has_compliance_checks: number;
  data: string;
  created_at: string;
}

const toIdentity = (r: Row): Identity => ({
  id: r.id,
  type: r.type,
  deleted: r.deleted === 1,
  hasComplianceChecks: r.has_compliance_checks === 1,
  data: JSON.parse(r.data) as Record<string, unknown>,
});

const lc = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

export function insertIdentity(db: Db, identity: IdentityRow): void {
  const d = identity.data;
  const first = lc(d.firstName);
  const last = lc(d.lastName);
  db.prepare(
    `INSERT INTO identities (id, org_id, type, deleted, has_compliance_checks, data, first_name_lc, last_name_lc, full_name_lc, email_lc, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(identity.id, identity.orgId, identity.type, identity.deleted ? 1 : 0, identity.hasComplianceChecks ? 1 : 0, JSON.stringify(d), first, last, `${first} ${last}`.trim(), lc(d.email), identity.createdAt);
}

export function getIdentity(db: Db, orgId: string, id: string): Identity | undefined {
  const row = db.prepare('SELECT * FROM identities WHERE org_id = ? AND id = ?').get(orgId, id) as Row | undefined;
  return row && toIdentity(row);
}

export interface IdentityFilter {
  name?: string | undefined;
  email?: string | undefined;
  type?: IdentityType | undefined;
  startingAfter?: string | undefined;
  limit: number;
}

// Every string that starts with p sorts in [p, p || U+10FFFF): an index range scan per column.
const PREFIX_END = String.fromCodePoint(0x10ffff);

/** Up to limit + 1 rows ordered by id, so the caller knows exactly whether more exist. */
export function listIdentities(db: Db, orgId: string, f: IdentityFilter): Identity[] {
  const where = ['org_id = ?'];
  const params: unknown[] = [orgId];
  if (f.name !== undefined) {
    const p = f.name.toLowerCase();
    where.push('((first_name_lc >= ? AND first_name_lc < ?) OR (last_name_lc >= ? AND last_name_lc < ?) OR (full_name_lc >= ? AND full_name_lc < ?))');
    params.push(p, p + PREFIX_END, p, p + PREFIX_END, p, p + PREFIX_END);
  }
  if (f.email !== undefined) {
    const p = f.email.toLowerCase();
    where.push('email_lc >= ? AND email_lc < ?');
    params.push(p, p + PREFIX_END);
  }
  if (f.type !== undefined) {
    where.push('type = ?');
    params.push(f.type);
  }
  if (f.startingAfter !== undefined) {
    where.push('id > ?');
    params.push(f.startingAfter);
  }
  params.push(f.limit + 1);
  const rows = db.prepare(`SELECT * FROM identities WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`).all(...params) as Row[];
  return rows.map(toIdentity);
}
