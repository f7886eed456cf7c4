/**
 * The `webhook_secrets` table: each webhook's Standard Webhooks secrets, sealed under the master
 * key. The current one has no expires_at; one a rotation replaced signs until its expires_at.
 *
 * @module store/webhook-secrets
 */
import type { Db } from '../db/database.js';

export interface WebhookSecretRow {
  id: string;
  webhook_id: string;
  org_id: string;
  secret_enc: string;
  created_at: string;
  expires_at: string | null;
}

export async function insertWebhookSecret(db: Db, row: WebhookSecretRow): Promise<void> {
  await db.run('INSERT INTO webhook_secrets (id, webhook_id, org_id, secret_enc, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)', [
    row.id,
    row.webhook_id,
    row.org_id,
    row.secret_enc,
    row.created_at,
    row.expires_at,
  ]);
}

/**
 * The secrets that sign a webhook's deliveries at `nowIso`: the current one first, then those a
 * rotation replaced whose window is still open, newest first. One seek on (webhook_id, created_at).
 */
export async function signingSecrets(db: Db, webhookId: string, nowIso: string): Promise<WebhookSecretRow[]> {
  return (await db.all(
    `SELECT * FROM webhook_secrets WHERE webhook_id = ? AND (expires_at IS NULL OR expires_at > ?)
      ORDER BY CASE WHEN expires_at IS NULL THEN 0 ELSE 1 END, created_at DESC, id DESC`,
    [webhookId, nowIso],
  )) as WebhookSecretRow[];
}

/** Ends a secret's signing at `at`: the current one at a rotation (at = the window's end), or a pending one replaced (at = now). */
export async function expireWebhookSecret(db: Db, id: string, at: string): Promise<void> {
  await db.run('UPDATE webhook_secrets SET expires_at = ? WHERE id = ?', [at, id]);
}

/** Which of these webhooks have a current secret (and so send the webhook-* headers). */
export async function webhooksWithSecret(db: Db, webhookIds: readonly string[]): Promise<Set<string>> {
  if (webhookIds.length === 0) return new Set();
  const placeholders = webhookIds.map(() => '?').join(', ');
  const ids = await db.column<string>(
    `SELECT DISTINCT webhook_id FROM webhook_secrets WHERE webhook_id IN (${placeholders}) AND expires_at IS NULL`,
    [...webhookIds],
  );
  return new Set(ids);
}
