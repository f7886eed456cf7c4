/**
 * The `webhook_keys` table: each organization's RSA keys for `x-signature`, the private half sealed
 * under the master key. An organization's current key is its newest unretired one.
 *
 * @module store/webhook-keys
 */
import type { Db } from '../db/database.js';

export interface WebhookKeyRow {
  id: string;
  org_id: string;
  public_pem: string;
  private_enc: string;
  created_at: string;
  retired_at: string | null;
}

const CURRENT = 'FROM webhook_keys WHERE org_id = ? AND retired_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1';

export async function currentKeyRow(db: Db, orgId: string): Promise<WebhookKeyRow | undefined> {
  return (await db.get(`SELECT * ${CURRENT}`, [orgId])) as WebhookKeyRow | undefined;
}

/** The id of the organization's current key: one seek, read before every pass of signing. */
export async function currentKeyId(db: Db, orgId: string): Promise<string | undefined> {
  return (await db.value(`SELECT id ${CURRENT}`, [orgId])) as string | undefined;
}

/** One of the organization's keys by id, retired or not (another organization's id is as good as unknown). */
export async function webhookKeyOf(db: Db, orgId: string, id: string): Promise<WebhookKeyRow | undefined> {
  return (await db.get('SELECT * FROM webhook_keys WHERE org_id = ? AND id = ?', [orgId, id])) as WebhookKeyRow | undefined;
}

/** The sealed private half of a key, by id. */
export async function sealedPrivateKey(db: Db, id: string): Promise<string | undefined> {
  return (await db.value('SELECT private_enc FROM webhook_keys WHERE id = ?', [id])) as string | undefined;
}

/** The organization's keys, retired ones included, by id (oldest first). */
export async function listWebhookKeys(db: Db, orgId: string): Promise<WebhookKeyRow[]> {
  return (await db.all('SELECT * FROM webhook_keys WHERE org_id = ? ORDER BY id', [orgId])) as WebhookKeyRow[];
}

export async function insertWebhookKey(db: Db, row: WebhookKeyRow): Promise<void> {
  await db.run('INSERT INTO webhook_keys (id, org_id, public_pem, private_enc, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?)', [
    row.id,
    row.org_id,
    row.public_pem,
    row.private_enc,
    row.created_at,
    row.retired_at,
  ]);
}

/** Retires every current key of the organization (a rotation, before its new key is inserted). */
export async function retireWebhookKeys(db: Db, orgId: string, at: string): Promise<void> {
  await db.run('UPDATE webhook_keys SET retired_at = ? WHERE org_id = ? AND retired_at IS NULL', [at, orgId]);
}

/** Every key's public half, retired ones included: what a signature made with any of them is checked against. */
export async function publicKeys(db: Db): Promise<{ id: string; publicPem: string }[]> {
  return (await db.all('SELECT id, public_pem AS "publicPem" FROM webhook_keys ORDER BY id')) as { id: string; publicPem: string }[];
}

/** Replaces a key's sealed private half. */
export async function replaceSealedPrivateKey(db: Db, id: string, sealed: string): Promise<void> {
  await db.run('UPDATE webhook_keys SET private_enc = ? WHERE id = ?', [sealed, id]);
}
