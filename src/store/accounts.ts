/**
 * The `accounts` table: an organization's accounts, their assets and fiat rails (kept as JSON), and
 * the deprecated fields that only the legacy flag shows.
 *
 * @module store/accounts
 */
import type { Db } from '../db/database.js';

export interface AccountAsset {
  id: string;
  asset: string;
  address: string;
}
export interface AccountFiat {
  id: string;
  fiat: string;
}

export interface AccountRecord {
  id: string;
  orgId: string;
  provider: string;
  name: string;
  assets: AccountAsset[];
  fiats: AccountFiat[];
  identityId: string | null;
  /** The deprecated fields, kept so the legacy flag can still show them. */
  legacy: { type: string | null; pfi: string | null; web3Provider: string | null };
  createdAt: string;
}

interface Row {
  id: string;
  org_id: string;
  provider: string;
  name: string;
  assets: string;
  fiats: string;
  identity_id: string | null;
  legacy_type: string | null;
  legacy_pfi: string | null;
  legacy_web3_provider: string | null;
  created_at: string;
}

const toAccount = (r: Row): AccountRecord => ({
  id: r.id,
  orgId: r.org_id,
  provider: r.provider,
  name: r.name,
  assets: JSON.parse(r.assets) as AccountAsset[],
  fiats: JSON.parse(r.fiats) as AccountFiat[],
  identityId: r.identity_id,
  legacy: { type: r.legacy_type, pfi: r.legacy_pfi, web3Provider: r.legacy_web3_provider },
  createdAt: r.created_at,
});

export async function insertAccount(db: Db, a: AccountRecord): Promise<void> {
  await db.run(
    `INSERT INTO accounts (id, org_id, provider, name, assets, fiats, identity_id, legacy_type, legacy_pfi, legacy_web3_provider, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      a.id,
      a.orgId,
      a.provider,
      a.name,
      JSON.stringify(a.assets),
      JSON.stringify(a.fiats),
      a.identityId,
      a.legacy.type,
      a.legacy.pfi,
      a.legacy.web3Provider,
      a.createdAt,
    ],
  );
}

export async function getAccount(db: Db, orgId: string, id: string): Promise<AccountRecord | undefined> {
  const row = (await db.get('SELECT * FROM accounts WHERE org_id = ? AND id = ?', [orgId, id])) as Row | undefined;
  return row && toAccount(row);
}
