/**
 * Ordered delivery as operators and organizations handle it: the lines held by a failing head, and
 * releasing a head (skip or cancel) so the deliveries behind it go.
 *
 * @module services/delivery-order
 */
import type { AppContext } from '../context.js';
import { withTransaction } from '../db/database.js';
import { isoAt } from '../domain/clock.js';
import { conflict, notFound } from '../domain/errors.js';
import { wakeDispatcher } from '../delivery/enqueue.js';
import { getDelivery } from '../store/deliveries.js';
import { releasePending } from '../store/delivery-results.js';
import { blockedResources, getDeliveryView, type BlockedResource, type DeliveryView } from '../store/delivery-views.js';
import { getWebhook } from '../store/webhooks.js';

/** The most blocked lines one read returns. */
export const MAX_BLOCKED_LIST = 1000;

/** How a head leaves its line without a success: skipped (a replay sends it again) or cancelled. */
export type Release = 'skipped' | 'cancelled';

/** The organization's webhook's lines held by a failing head, oldest head first; 404 for an unknown webhook. */
export async function blockedLinesOf(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  limit = MAX_BLOCKED_LIST,
): Promise<BlockedResource[]> {
  if (!(await getWebhook(ctx.db, orgId, webhookId))) throw notFound(`webhook ${webhookId}`);
  return await blockedResources(ctx.db, { orgId, webhookId, limit });
}

/** Every blocked line, across organizations (the operator's view), optionally of one organization or webhook. */
export async function blockedLines(
  ctx: AppContext,
  f: { orgId?: string | undefined; webhookId?: string | undefined; limit?: number | undefined } = {},
): Promise<BlockedResource[]> {
  return await blockedResources(ctx.db, { orgId: f.orgId, webhookId: f.webhookId, limit: f.limit ?? MAX_BLOCKED_LIST });
}

/**
 * Takes a pending delivery of the organization out of its line unsent, as `state`: on an ordered
 * webhook the next one of its resource becomes the head and goes. 404 for an unknown id; 409 when
 * it is not pending (delivery_not_pending) or a dispatcher holds it (delivery_in_flight: its result
 * is awaited, since the ones behind it must not overtake an attempt that may have reached the endpoint).
 */
export async function releaseDelivery(ctx: AppContext, orgId: string, id: string, state: Release): Promise<DeliveryView> {
  const view = await withTransaction(ctx, async (ctx) => {
    const now = ctx.clock.now();
    const delivery = await getDeliveryView(ctx.db, orgId, id, now);
    if (!delivery) throw notFound(`delivery ${id}`);
    if (delivery.state !== 'pending')
      throw conflict('delivery_not_pending', `delivery ${id} is ${delivery.state}; only a pending delivery can be ${state}`);
    if (!(await releasePending(ctx.db, orgId, id, state, now, isoAt(now))))
      throw conflict('delivery_in_flight', `delivery ${id} is being sent right now; wait for its result, then try again`);
    return (await getDeliveryView(ctx.db, orgId, id, now))!;
  });
  wakeDispatcher(ctx);
  return view;
}

/** releaseDelivery by id alone, for the operator's CLI: the delivery's organization is read from it. */
export async function releaseAnyDelivery(ctx: AppContext, id: string, state: Release): Promise<DeliveryView> {
  const delivery = await getDelivery(ctx.db, id);
  if (!delivery) throw notFound(`delivery ${id}`);
  return await releaseDelivery(ctx, delivery.orgId, id, state);
}
