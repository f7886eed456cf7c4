/**
 * The `identities` table: identity records with lowercase copies of the names and email indexed per
 * organization, and the plan that lists a prefix's matches (docs/resources.md, "Speed").
 *
 * @module store/identities
 */
import { joinSql, sql, type Db, type Sql } from '../db/database.js';
import { indexedBy, NOT_INDEXED } from '../db/dialect.js';
import { remember } from '../domain/bounded-map.js';

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
  type: IdentityType;
  deleted: number;
  has_compliance_checks: number;
  data: string;
}

/** The columns an Identity is made of: the lowercase copies and timestamps stay in SQLite. */
const COLUMNS = 'id, type, deleted, has_compliance_checks, data';

/** An identity as listed: its data still the JSON text it is stored as (written by JSON.stringify in insertIdentity). */
export interface ListedIdentity extends Omit<Identity, 'data'> {
  dataJson: string;
}

const toListed = (r: Row): ListedIdentity => ({
  id: r.id,
  type: r.type,
  deleted: r.deleted === 1,
  hasComplianceChecks: r.has_compliance_checks === 1,
  dataJson: r.data,
});

const parseListed = ({ dataJson, ...rest }: ListedIdentity): Identity => ({
  ...rest,
  data: JSON.parse(dataJson) as Record<string, unknown>,
});

const toIdentity = (r: Row): Identity => parseListed(toListed(r));

const lc = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

/**
 * The lowercase "firstName lastName" the name filter also matches: both names joined by one space,
 * or '' when either is missing (a single name is already matched on its own column). Stored exactly
 * so, never trimmed, a full name starts with a prefix that has no space only where its first name
 * does: the full-name column can only add a match for a prefix with a space (nameColumns).
 * Migration 011 brings rows stored otherwise to this form.
 */
export const fullNameLc = (firstLc: string, lastLc: string): string => (firstLc && lastLc ? `${firstLc} ${lastLc}` : '');

export async function insertIdentity(db: Db, identity: IdentityRow): Promise<void> {
  const d = identity.data;
  const first = lc(d.firstName);
  const last = lc(d.lastName);
  await db.run(
    `INSERT INTO identities (id, org_id, type, deleted, has_compliance_checks, data, first_name_lc, last_name_lc, full_name_lc, email_lc, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      identity.id,
      identity.orgId,
      identity.type,
      identity.deleted ? 1 : 0,
      identity.hasComplianceChecks ? 1 : 0,
      JSON.stringify(d),
      first,
      last,
      fullNameLc(first, last),
      lc(d.email),
      identity.createdAt,
    ],
  );
}

export async function getIdentity(db: Db, orgId: string, id: string): Promise<Identity | undefined> {
  const row = (await db.get(`SELECT ${COLUMNS} FROM identities WHERE org_id = ? AND id = ?`, [orgId, id])) as Row | undefined;
  return row && toIdentity(row);
}

/** Sets the flags given; answers false when the identity is not the organization's. */
export async function updateIdentityFlags(
  db: Db,
  orgId: string,
  id: string,
  flags: { deleted?: boolean | undefined; hasComplianceChecks?: boolean | undefined },
): Promise<boolean> {
  const r = await db.run(
    'UPDATE identities SET deleted = COALESCE(?, deleted), has_compliance_checks = COALESCE(?, has_compliance_checks) WHERE org_id = ? AND id = ?',
    [
      flags.deleted === undefined ? null : Number(flags.deleted),
      flags.hasComplianceChecks === undefined ? null : Number(flags.hasComplianceChecks),
      orgId,
      id,
    ],
  );
  return r === 1;
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

/**
 * How many name matches make a prefix dense for a page of `limit`: above it the list walks the
 * organization's identities in id order instead of collecting and sorting every match. With m
 * matches among N rows the walk reads about (limit + 1) · N / m entries of identities_org_id_names
 * (which holds the names, type and email, so an entry that does not match costs no table read);
 * collecting reads the m matches and sorts their ids. The bound is where the two cost the same
 * among 100,000 identities (docs/resources.md, "Speed", with the per-entry costs); with fewer
 * identities both plans are fast, with more the walk is chosen a little late.
 */
export function denseMatchesFor(limit: number): number {
  return Math.round(150 * Math.sqrt(limit + 1));
}

/** The matches are counted only up to the largest bound: counting a dense prefix exactly would read every match. */
const DENSE_COUNT_CAP = denseMatchesFor(100) + 1;

type NameColumn = 'first_name_lc' | 'last_name_lc' | 'full_name_lc';

/**
 * The name columns a lowercase prefix can match. Without a space a full name ("first last") starts
 * with the prefix only when its first name does (fullNameLc), so the full-name range is left out:
 * a third of the tests on every entry of a dense walk, and a third of a rare prefix's range scans.
 */
function nameColumns(p: string): readonly NameColumn[] {
  return p.includes(' ') ? ['first_name_lc', 'last_name_lc', 'full_name_lc'] : ['first_name_lc', 'last_name_lc'];
}

/** The name filter over `columns`, with its parameters (two per range). */
function nameMatch(columns: readonly NameColumn[], p: string): { sql: string; params: string[] } {
  const end = p + PREFIX_END;
  return { sql: `(${columns.map((c) => `(${c} >= ? AND ${c} < ?)`).join(' OR ')})`, params: columns.flatMap(() => [p, end]) };
}

/**
 * The capped match count per connection and name prefix (`${orgId} ${prefix}`) or email prefix,
 * newest last, at most DENSITY_CACHE entries. Only the plan depends on it, never the rows listed
 * (both plans answer the same), so a count that went stale as identities were added costs speed at
 * worst; it is still refreshed after DENSITY_TTL_MS. Counting reads up to DENSE_COUNT_CAP index
 * entries per column: too much to repeat on every request.
 */
const densityCache = new WeakMap<Db, Map<string, { matches: number; at: number }>>();
const DENSITY_CACHE = 1_000;
const DENSITY_TTL_MS = 60_000;

function isDenseNamePrefix(db: Db, orgId: string, p: string, limit: number): Promise<boolean> {
  return isDense(db, `${orgId} ${p}`, limit, () => countNameMatches(db, orgId, p));
}

/** The same for an email prefix, under keys of its own (no organization id holds a NUL). */
function isDenseEmailPrefix(db: Db, orgId: string, p: string, limit: number): Promise<boolean> {
  return isDense(db, `${orgId}\u0000email\u0000${p}`, limit, () => countEmailMatches(db, orgId, p));
}

async function isDense(db: Db, key: string, limit: number, count: () => Promise<number>): Promise<boolean> {
  let cache = densityCache.get(db);
  if (!cache) densityCache.set(db, (cache = new Map()));
  const now = performance.now();
  let hit = cache.get(key);
  if (!hit || now - hit.at >= DENSITY_TTL_MS) remember(cache, key, (hit = { matches: await count(), at: now }), DENSITY_CACHE);
  return hit.matches > denseMatchesFor(limit);
}

/** The email matches up to DENSE_COUNT_CAP: at most that many entries of identities_org_email. */
async function countEmailMatches(db: Db, orgId: string, p: string): Promise<number> {
  return (
    (await db.get('SELECT COUNT(*) AS n FROM (SELECT 1 FROM identities WHERE org_id = ? AND email_lc >= ? AND email_lc < ? LIMIT ?)', [
      orgId,
      p,
      p + PREFIX_END,
      DENSE_COUNT_CAP,
    ])) as { n: number }
  ).n;
}

/** The name matches (one per matching column) up to DENSE_COUNT_CAP. */
async function countNameMatches(db: Db, orgId: string, p: string): Promise<number> {
  const end = p + PREFIX_END;
  // The first-name range alone reaching the cap settles it with one index seek and a skip (the usual dense case).
  const past = await db.get('SELECT 1 FROM identities WHERE org_id = ? AND first_name_lc >= ? AND first_name_lc < ? LIMIT 1 OFFSET ?', [
    orgId,
    p,
    end,
    DENSE_COUNT_CAP - 1,
  ]);
  if (past !== undefined) return DENSE_COUNT_CAP;
  const columns = nameColumns(p);
  const ranges = columns.map((c) => `SELECT 1 FROM identities WHERE org_id = ? AND ${c} >= ? AND ${c} < ?`);
  return (
    (await db.get(`SELECT COUNT(*) AS n FROM (${ranges.join(' UNION ALL ')} LIMIT ?)`, [
      ...columns.flatMap(() => [orgId, p, end]),
      DENSE_COUNT_CAP,
    ])) as { n: number }
  ).n;
}

/**
 * How a name filter is served: 'email' (a rare email prefix's matches drive, names tested on them), 'walk' (a
 * dense prefix: ids in order on the names index until limit + 1 matches) or 'collect' (a rare
 * prefix: one index range scan per name column, then only the matches are sorted by id).
 */
export type NamePlan = 'email' | 'walk' | 'collect';

export async function namePlan(db: Db, orgId: string, f: IdentityFilter): Promise<NamePlan | undefined> {
  if (f.name === undefined) return undefined;
  // A rare email prefix drives (its matches collected, then sorted by id); a dense one is tested
  // like the names, on the walk or on the collected name matches: driving by a dense email range
  // would sort every match for each page.
  if (f.email !== undefined && !(await isDenseEmailPrefix(db, orgId, f.email.toLowerCase(), f.limit))) return 'email';
  return (await isDenseNamePrefix(db, orgId, f.name.toLowerCase(), f.limit)) ? 'walk' : 'collect';
}

/** Up to limit + 1 rows ordered by id, so the caller knows exactly whether more exist. */
export async function listIdentities(db: Db, orgId: string, f: IdentityFilter): Promise<ListedIdentity[]> {
  const where: Sql[] = ['org_id = ?'];
  const params: unknown[] = [orgId];
  let indexHint: Sql = '';
  const plan = await namePlan(db, orgId, f);
  // SQLite keeps no statistics here, so the walks name their index and keep the email columns out
  // of the plan (NOT_INDEXED); PostgreSQL plans from its own statistics.
  const walkHint = indexedBy('identities_org_id_names');
  if (plan !== undefined && f.name !== undefined) {
    const p = f.name.toLowerCase();
    const columns = nameColumns(p);
    if (plan === 'collect') {
      const ranges = columns.map((c) => `SELECT id FROM identities WHERE org_id = ? AND ${c} >= ? AND ${c} < ?`);
      where.push(`id IN (${ranges.join(' UNION ')})`);
      params.push(...columns.flatMap(() => [orgId, p, p + PREFIX_END]));
    } else {
      if (plan === 'walk') indexHint = walkHint;
      const match = nameMatch(columns, p);
      where.push(match.sql);
      params.push(...match.params);
    }
  }
  if (f.email !== undefined) {
    const p = f.email.toLowerCase();
    // Without a name: a rare email prefix is collected (its matches sorted by id), a dense one walks
    // the organization's ids on identities_org_id_names, which holds email_lc (migration 015). With
    // a name, namePlan chose: 'email' collects here; otherwise the email is only tested per row.
    const collect = plan === 'email' || (plan === undefined && !(await isDenseEmailPrefix(db, orgId, p, f.limit)));
    if (collect) {
      where.push('id IN (SELECT id FROM identities WHERE org_id = ? AND email_lc >= ? AND email_lc < ?)');
      params.push(orgId, p, p + PREFIX_END);
    } else {
      if (plan === undefined) indexHint = walkHint;
      where.push(sql`${NOT_INDEXED}email_lc >= ? AND ${NOT_INDEXED}email_lc < ?`);
      params.push(p, p + PREFIX_END);
    }
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
  const rows = (await db.all(
    sql`SELECT ${COLUMNS} FROM identities ${indexHint} WHERE ${joinSql(where, ' AND ')} ORDER BY id LIMIT ?`,
    params,
  )) as Row[];
  return rows.map(toListed);
}
