/**
 * The `webhook_keys` table: each organization's RSA keys for `x-signature`, the private half sealed
 * under the master key. An organization's current key is its newest unretired one.
 *
 * @module store/webhook-keys
 */
import type { Db } from '../db/open.js';

export interface WebhookKeyRow {
  id: string;
  org_id: string;
  public_pem: string;
  private_enc: string;
  created_at: string;
  retired_at: string | null;
}

const CURRENT = 'FROM webhook_keys WHERE org_id = ? AND retired_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1';

export function currentKeyRow(db: Db, orgId: string): WebhookKeyRow | undefined {
  return db.prepare(`SELECT * ${CURRENT}`).get(orgId) as WebhookKeyRow | undefined;
}

/** The id of the organization's current key: one seek, read before every pass of signing. */
export function currentKeyId(db: Db, orgId: string): string | undefined {
  return db.prepare(`SELECT id ${CURRENT}`).pluck().get(orgId) as string | undefined;
}

/** The sealed private half of a key, by id. */
export function sealedPrivateKey(db: Db, id: string): string | undefined {
  return db.prepare('SELECT private_enc FROM webhook_keys WHERE id = ?').pluck().get(id) as string | undefined;
}

/** The organization's keys, retired ones included, by id (oldest first). */
export function listWebhookKeys(db: Db, orgId: string): WebhookKeyRow[] {
  return db.prepare('SELECT * FROM webhook_keys WHERE org_id = ? ORDER BY id').all(orgId) as WebhookKeyRow[];
}

export function insertWebhookKey(db: Db, row: WebhookKeyRow): void {
  db.prepare('INSERT INTO webhook_keys (id, org_id, public_pem, private_enc, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    row.id,
    row.org_id,
    row.public_pem,
    row.private_enc,
    row.created_at,
    row.retired_at,
  );
}

/** Retires every current key of the organization (a rotation, before its new key is inserted). */
export function retireWebhookKeys(db: Db, orgId: string, at: string): void {
  db.prepare('UPDATE webhook_keys SET retired_at = ? WHERE org_id = ? AND retired_at IS NULL').run(at, orgId);
}

/** Every key's public half, retired ones included: what a signature made with any of them is checked against. */
export function publicKeys(db: Db): { id: string; publicPem: string }[] {
  return db.prepare('SELECT id, public_pem AS publicPem FROM webhook_keys ORDER BY id').all() as { id: string; publicPem: string }[];
}

/** Replaces a key's sealed private half. */
export function replaceSealedPrivateKey(db: Db, id: string, sealed: string): void {
  db.prepare('UPDATE webhook_keys SET private_enc = ? WHERE id = ?').run(sealed, id);
}
