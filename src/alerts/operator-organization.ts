/**
 * The operator organization: borderd's own, made when alerts.webhookUrl is first set, with one
 * webhook (that url) and a signing key like any organization's, so alert receivers verify
 * `x-signature` as every receiver does (`borderd webhooks public-key --org <its id>`). It has no API
 * clients, and organization lists leave it out. Set at each start from the configuration: a new url
 * replaces the old and enables the webhook; no url disables it.
 *
 * @module alerts/operator-organization
 */
import type { AppContext } from '../context.js';
import { holdLock, withTransaction } from '../db/database.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { ensureSigningKey, pairIfKeyless } from '../delivery/signing-keys.js';
import { setWebhookEnabled } from '../delivery/webhook-state.js';
import { insertOperatorOrganization, operatorOrganizationId } from '../store/organizations.js';
import { insertWebhook, listWebhooks } from '../store/webhooks.js';

const NAME = 'borderd operator alerts';
const BY_CONFIGURATION = 'the configuration (alerts.webhookUrl)';

/** Makes the operator organization and its webhook match alerts.webhookUrl; returns its id, or undefined when there is none. */
export async function prepareOperatorOrganization(ctx: AppContext): Promise<string | undefined> {
  const url = ctx.config.alerts.webhookUrl;
  const existing = await operatorOrganizationId(ctx.db);
  const at = isoAt(ctx.clock.now());
  if (url === undefined) {
    if (existing === undefined) return undefined;
    await withTransaction(ctx, async (ctx) => {
      for (const w of await listWebhooks(ctx.db, existing)) if (w.enabled) await setWebhookEnabled(ctx, w, false, at, BY_CONFIGURATION);
    });
    return existing;
  }
  const made = existing ?? newId('org', ctx.clock.now());
  // The key pair is made before the write and off the main thread, as for any organization's first webhook.
  const pair = await pairIfKeyless(ctx, made);
  const orgId = await withTransaction(ctx, async (ctx) => {
    await holdLock(ctx.db, 'alerts:operator');
    let id = await operatorOrganizationId(ctx.db);
    if (id === undefined) {
      id = made;
      await insertOperatorOrganization(ctx.db, { id, name: NAME, createdAt: at });
    }
    const [hook] = await listWebhooks(ctx.db, id);
    if (!hook) {
      await insertWebhook(ctx.db, {
        id: newId('whk', ctx.clock.now()),
        orgId: id,
        url,
        enabled: true,
        disabledReason: null,
        disabledAt: null,
        eventTypes: [],
        ordering: 'none',
        createdAt: at,
        updatedAt: at,
      });
    } else if (hook.url !== url || !hook.enabled) {
      await setWebhookEnabled(ctx, hook, true, at, BY_CONFIGURATION, url);
    }
    await ensureSigningKey(ctx, id, pair);
    return id;
  });
  ctx.log.info({ organizationId: orgId }, 'operator alerts go to alerts.webhookUrl, signed with the operator organization key');
  return orgId;
}
