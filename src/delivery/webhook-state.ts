/**
 * The one place a webhook's enabled flag moves, and what that does to its deliveries: a disabled
 * webhook's pending rows become skipped, kept for a replay once it is enabled again, and the
 * context's webhookDisabledHooks run (an operator alert). Operators (the CLI, the admin API), the
 * organization (the API's PATCH) and the dispatcher (a 410, or the last failed attempt of a cycle)
 * all come here. Each function runs inside its caller's transaction (`ctx.db`).
 *
 * @module delivery/webhook-state
 */
import type { AppContext } from '../context.js';
import { setPendingState } from '../store/deliveries.js';
import { getWebhookById, updateWebhook, type WebhookRecord } from '../store/webhooks.js';

/** A change by a person: the url and the flag as given; a disable records who made it (`by`) as its reason. */
export async function setWebhookEnabled(
  ctx: AppContext,
  webhook: WebhookRecord,
  enabled: boolean,
  at: string,
  by: string,
  url = webhook.url,
): Promise<void> {
  const reason = `disabled by ${by}`;
  await updateWebhook(ctx.db, webhook.id, url, enabled, enabled ? null : reason, at);
  if (enabled) return;
  await setPendingState(ctx.db, webhook.id, 'skipped', at);
  if (webhook.enabled) await disabled(ctx, webhook, reason, at);
}

/**
 * The dispatcher's: disables the webhook with the reason operators see. A webhook disabled
 * meanwhile keeps the reason and time it has; its pending rows are skipped either way.
 */
export async function disableWebhook(ctx: AppContext, id: string, reason: string, at: string): Promise<void> {
  const webhook = await getWebhookById(ctx.db, id);
  if (webhook?.enabled) await updateWebhook(ctx.db, id, webhook.url, false, reason, at);
  await setPendingState(ctx.db, id, 'skipped', at);
  if (webhook?.enabled) await disabled(ctx, webhook, reason, at);
}

async function disabled(ctx: AppContext, webhook: WebhookRecord, reason: string, at: string): Promise<void> {
  for (const hook of ctx.webhookDisabledHooks) await hook({ ctx, webhook, reason, at });
}
