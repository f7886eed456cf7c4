/**
 * The `organizations` table: the owners of every other row.
 *
 * @module store/organizations
 */
import type { Db } from '../db/open.js';

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
}

interface Row {
  id: string;
  name: string;
  created_at: string;
}

const toOrganization = (r: Row): Organization => ({ id: r.id, name: r.name, createdAt: r.created_at });

export function insertOrganization(db: Db, org: Organization): void {
  db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(org.id, org.name, org.createdAt);
}

export function getOrganization(db: Db, id: string): Organization | undefined {
  const row = db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as Row | undefined;
  return row && toOrganization(row);
}

export function listOrganizations(db: Db): Organization[] {
  return (db.prepare('SELECT * FROM organizations ORDER BY id').all() as Row[]).map(toOrganization);
}

export function countOrganizations(db: Db): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM organizations').get() as { n: number }).n;
}
