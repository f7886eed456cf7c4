/**
 * The `organizations` table: the owners of every other row. One may be the operator organization
 * (borderd's own, whose events are operator alerts): lists and counts leave it out.
 *
 * @module store/organizations
 */
import type { Db } from '../db/database.js';

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

export async function insertOrganization(db: Db, org: Organization): Promise<void> {
  await db.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', [org.id, org.name, org.createdAt]);
}

export async function getOrganization(db: Db, id: string): Promise<Organization | undefined> {
  const row = (await db.get('SELECT * FROM organizations WHERE id = ?', [id])) as Row | undefined;
  return row && toOrganization(row);
}

export async function listOrganizations(db: Db): Promise<Organization[]> {
  return ((await db.all('SELECT * FROM organizations WHERE operator = 0 ORDER BY id')) as Row[]).map(toOrganization);
}

export async function countOrganizations(db: Db): Promise<number> {
  return Number(((await db.get('SELECT COUNT(*) AS n FROM organizations WHERE operator = 0')) as { n: number }).n);
}

/** The operator organization's id, when it has been made (src/alerts). */
export async function operatorOrganizationId(db: Db): Promise<string | undefined> {
  return db.value<string>('SELECT id FROM organizations WHERE operator = 1');
}

export async function insertOperatorOrganization(db: Db, org: Organization): Promise<void> {
  await db.run('INSERT INTO organizations (id, name, created_at, operator) VALUES (?, ?, ?, 1)', [org.id, org.name, org.createdAt]);
}

/** Every organization's id, for per-organization gauges (organizations are few: a scrape lists them). */
export async function listOrganizationIds(db: Db): Promise<string[]> {
  return db.column<string>('SELECT id FROM organizations ORDER BY id');
}
