/**
 * The `card_network_keys` table: an organization's card-network decryption keys, the private half
 * sealed under the master key. Several may be active at once; a notification's JWE kid picks one.
 *
 * @module store/card-network-keys
 */
import type { Db } from '../db/database.js';

export interface CardNetworkKey {
  id: string;
  orgId: string;
  kid: string;
  publicPem: string;
  privateEnc: string;
  source: 'generated' | 'imported';
  createdAt: string;
}

interface Row {
  id: string;
  org_id: string;
  kid: string;
  public_pem: string;
  private_enc: string;
  source: 'generated' | 'imported';
  created_at: string;
}

const toKey = (r: Row): CardNetworkKey => ({
  id: r.id,
  orgId: r.org_id,
  kid: r.kid,
  publicPem: r.public_pem,
  privateEnc: r.private_enc,
  source: r.source,
  createdAt: r.created_at,
});

export async function insertCardNetworkKey(db: Db, k: CardNetworkKey): Promise<void> {
  await db.run(
    'INSERT INTO card_network_keys (id, org_id, kid, public_pem, private_enc, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [k.id, k.orgId, k.kid, k.publicPem, k.privateEnc, k.source, k.createdAt],
  );
}

/** The organization's key with this kid; another organization's key is never returned. */
export async function findCardNetworkKey(db: Db, orgId: string, kid: string): Promise<CardNetworkKey | undefined> {
  const row = (await db.get('SELECT * FROM card_network_keys WHERE org_id = ? AND kid = ?', [orgId, kid])) as Row | undefined;
  return row && toKey(row);
}

export async function listCardNetworkKeys(db: Db, orgId?: string): Promise<CardNetworkKey[]> {
  const rows = orgId
    ? await db.all('SELECT * FROM card_network_keys WHERE org_id = ? ORDER BY id', [orgId])
    : await db.all('SELECT * FROM card_network_keys ORDER BY org_id, id');
  return (rows as Row[]).map(toKey);
}

export async function keysWithKid(db: Db, kid: string): Promise<CardNetworkKey[]> {
  return ((await db.all('SELECT * FROM card_network_keys WHERE kid = ? ORDER BY id', [kid])) as Row[]).map(toKey);
}

export async function deleteCardNetworkKey(db: Db, id: string): Promise<boolean> {
  return (await db.run('DELETE FROM card_network_keys WHERE id = ?', [id])) === 1;
}
