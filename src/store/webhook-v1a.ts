/**
 * The `webhook_v1a` table: the webhooks that opted in to Standard Webhooks' asymmetric `v1a`
 * signature, sent beside `v1`.
 *
 * @module store/webhook-v1a
 */
import type { Db } from '../db/database.js';

/** Opts the webhook in (`on`) or out; idempotent either way. */
export async function setWebhookV1a(db: Db, webhookId: string, on: boolean, at: string): Promise<void> {
  if (on)
    await db.run('INSERT INTO webhook_v1a (webhook_id, created_at) VALUES (?, ?) ON CONFLICT (webhook_id) DO NOTHING', [webhookId, at]);
  else await db.run('DELETE FROM webhook_v1a WHERE webhook_id = ?', [webhookId]);
}

/** Which of these webhooks opted in to v1a. */
export async function webhooksWithV1a(db: Db, webhookIds: readonly string[]): Promise<Set<string>> {
  if (webhookIds.length === 0) return new Set();
  const placeholders = webhookIds.map(() => '?').join(', ');
  return new Set(await db.column<string>(`SELECT webhook_id FROM webhook_v1a WHERE webhook_id IN (${placeholders})`, [...webhookIds]));
}
