/**
 * The `webhook_ed25519_keys` table: each organization's Ed25519 keys for Standard Webhooks' `v1a`
 * signature, the private half sealed under the master key. The current key is the newest unretired
 * one.
 *
 * @module store/ed25519-keys
 */
import type { Db } from '../db/database.js';

export interface Ed25519KeyRow {
  id: string;
  org_id: string;
  /** base64url of the 32 public key bytes. */
  public_key: string;
  private_enc: string;
  created_at: string;
  retired_at: string | null;
}

export async function currentEd25519Key(db: Db, orgId: string): Promise<Ed25519KeyRow | undefined> {
  return (await db.get(
    'SELECT * FROM webhook_ed25519_keys WHERE org_id = ? AND retired_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1',
    [orgId],
  )) as Ed25519KeyRow | undefined;
}

/** The organization's current key and those retired after `retiredAfter`, newest first. */
export async function publishedEd25519Keys(db: Db, orgId: string, retiredAfter: string): Promise<Ed25519KeyRow[]> {
  return (await db.all(
    'SELECT * FROM webhook_ed25519_keys WHERE org_id = ? AND (retired_at IS NULL OR retired_at > ?) ORDER BY created_at DESC, id DESC',
    [orgId, retiredAfter],
  )) as Ed25519KeyRow[];
}

export async function insertEd25519Key(db: Db, row: Ed25519KeyRow): Promise<void> {
  await db.run('INSERT INTO webhook_ed25519_keys (id, org_id, public_key, private_enc, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?)', [
    row.id,
    row.org_id,
    row.public_key,
    row.private_enc,
    row.created_at,
    row.retired_at,
  ]);
}

/** Retires the organization's current key (a rotation): the next signature makes a new one. */
export async function retireEd25519Keys(db: Db, orgId: string, at: string): Promise<void> {
  await db.run('UPDATE webhook_ed25519_keys SET retired_at = ? WHERE org_id = ? AND retired_at IS NULL', [at, orgId]);
}
