/**
 * The one place a webhook's enabled flag moves, and what that does to its deliveries: a disabled
 * webhook's pending rows become skipped, kept for a replay once it is enabled again. Operators (the
 * API's PATCH, the CLI) and the dispatcher (a 410, or the last failed attempt of a cycle) both come
 * here. Each function runs inside its caller's transaction.
 *
 * @module delivery/webhook-state
 */
import type { Db } from '../db/database.js';
import { setPendingState } from '../store/deliveries.js';
import { getWebhookById, updateWebhook, type WebhookRecord } from '../store/webhooks.js';

/** An operator's change: the url and the flag as given, and no disable reason (the operator is the reason). */
export async function setWebhookEnabled(db: Db, webhook: WebhookRecord, enabled: boolean, at: string, url = webhook.url): Promise<void> {
  await updateWebhook(db, webhook.id, url, enabled, null, at);
  if (!enabled) skipPending(db, webhook.id, at);
}

/**
 * The dispatcher's: disables the webhook with the reason operators see. A webhook an operator
 * disabled meanwhile keeps what they set; its pending rows are skipped either way.
 */
export async function disableWebhook(db: Db, id: string, reason: string, at: string): Promise<void> {
  const webhook = await getWebhookById(db, id);
  if (webhook?.enabled) await updateWebhook(db, id, webhook.url, false, reason, at);
  skipPending(db, id, at);
}

const skipPending = (db: Db, id: string, at: string): void => void setPendingState(db, id, 'skipped', at);
