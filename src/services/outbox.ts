/**
 * Operator work on the outbox: replays of a webhook or an event, counts and listings of deliveries,
 * a delivery's attempts, and synthetic events for testing receivers.
 *
 * @module services/outbox
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { syntheticIdentity } from '../domain/synthetic-event.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import { filterTakes } from '../domain/event-type-filter.js';
import { newId } from '../domain/ids.js';
import { ISO_TIME_HINT, parseIsoTime } from '../domain/iso-time.js';
import { announce } from '../cluster/wakeups.js';
import { enqueueEvent, firstAttemptAt, inOutboxTransaction, wakeDispatcher } from '../delivery/enqueue.js';
import type { StoredEvent } from '../delivery/events.js';
import { eventIdsSince, eventOrganization, eventTypesOf } from '../store/events.js';
import type { EventDataByType, EventType } from '../verify/events.js';
import { getDelivery, requeueDelivery, type Delivery, type DeliveryState } from '../store/deliveries.js';
import { countByState, pageDeliveries } from '../store/delivery-views.js';
import { getWebhookById, listWebhooks, type WebhookRecord } from '../store/webhooks.js';
import { withTransaction } from '../db/database.js';
import type { ReplayResult } from './outbox-views.js';

/** Rows per SQLite transaction during a large replay, so the daemon's dispatcher is not blocked for long. */
const REPLAY_BATCH = 500;

export function parseInstant(value: string, field: string): string {
  const ms = parseIsoTime(value);
  if (ms === undefined)
    throw badRequest('invalid_time', `${field} must be ${ISO_TIME_HINT}`, [{ path: field, message: `must be ${ISO_TIME_HINT}` }]);
  return isoAt(ms);
}

/**
 * Requeues every event of the webhook's organization created at or after `since` for that webhook:
 * skipped, failed, cancelled and delivered rows start a fresh retry cycle; missing rows are created.
 * The bodies are the stored ones, byte for byte, with the same event ids. Events of types the
 * webhook's filter leaves out are not queued.
 */
export async function replayWebhookSince(
  ctx: AppContext,
  webhookId: string,
  since: string,
  onProgress?: (done: number, total: number) => void | Promise<void>,
): Promise<ReplayResult> {
  const webhook = await replayableWebhook(ctx, webhookId);
  return await requeueForWebhook(ctx, webhook, await eventIdsSince(ctx.db, webhook.orgId, parseInstant(since, 'since')), onProgress);
}

/**
 * The replay itself, shared by the CLI and the API: `events` (the organization's, oldest first)
 * requeued for one webhook in batches, each in its own transaction. A row already pending is left
 * alone, so a replay asked twice queues nothing twice.
 */
export async function requeueForWebhook(
  ctx: AppContext,
  webhook: WebhookRecord,
  events: readonly { id: string; type: string }[],
  onProgress?: (done: number, total: number) => void | Promise<void>,
): Promise<ReplayResult> {
  const webhookId = webhook.id;
  const ids = events.filter((e) => filterTakes(webhook.eventTypes, e.type)).map((e) => e.id);
  let requeued = 0;
  for (let i = 0; i < ids.length; i += REPLAY_BATCH) {
    const batch = ids.slice(i, i + REPLAY_BATCH);
    requeued += await withTransaction(ctx, async (ctx) => {
      // Checked again in every batch: a webhook deleted or disabled meanwhile turned what earlier
      // batches queued into cancelled or skipped rows, and must not get pending rows after that.
      await replayableWebhook(ctx, webhookId);
      await announce(ctx.db, 'outbox');
      const now = ctx.clock.now();
      let n = 0;
      for (const eventId of batch) {
        if (
          await requeueDelivery(ctx.db, {
            id: newId('dlv', now),
            eventId,
            webhookId,
            orgId: webhook.orgId,
            nextAttemptAt: firstAttemptAt(ctx, now),
            at: isoAt(now),
          })
        )
          n++;
      }
      return n;
    });
    await onProgress?.(Math.min(i + REPLAY_BATCH, ids.length), ids.length);
  }
  wakeDispatcher(ctx);
  return { events: events.length, requeued };
}

/** A webhook that a replay may queue for: live and enabled (a disabled one is enabled first, which a replay does not do by itself). */
export async function replayableWebhook(ctx: AppContext, webhookId: string): Promise<WebhookRecord> {
  const webhook = await getWebhookById(ctx.db, webhookId);
  if (!webhook) throw notFound(`webhook ${webhookId}`);
  if (!webhook.enabled)
    throw conflict('webhook_disabled', `webhook ${webhookId} is disabled; enable it first (borderd webhooks enable ${webhookId})`);
  return webhook;
}

/** Requeues one event for every enabled webhook of its organization whose filter takes its type. */
export async function replayEvent(ctx: AppContext, eventId: string): Promise<ReplayResult> {
  const orgId = await eventOrganization(ctx.db, eventId);
  if (!orgId) throw notFound(`event ${eventId}`);
  const requeued = await withTransaction(ctx, async (ctx) => {
    await announce(ctx.db, 'outbox');
    const now = ctx.clock.now();
    let n = 0;
    const type = (await eventTypesOf(ctx.db, orgId, [eventId]))[0]?.type ?? '';
    for (const w of await listWebhooks(ctx.db, orgId)) {
      if (
        w.enabled &&
        filterTakes(w.eventTypes, type) &&
        (await requeueDelivery(ctx.db, {
          id: newId('dlv', now),
          eventId,
          webhookId: w.id,
          orgId: orgId,
          nextAttemptAt: firstAttemptAt(ctx, now),
          at: isoAt(now),
        }))
      )
        n++;
    }
    return n;
  });
  wakeDispatcher(ctx);
  return { events: 1, requeued };
}

export const outboxStatus = async (ctx: AppContext): Promise<Record<DeliveryState, number>> => await countByState(ctx.db);

/**
 * Deliveries of every organization, newest first, a page at a time as the API's lists page
 * (`startingAfter` an item of the list, `hasMore`); `since` is an ISO 8601 time.
 */
export async function listOutbox(
  ctx: AppContext,
  q: {
    state?: DeliveryState | undefined;
    webhookId?: string | undefined;
    since?: string | undefined;
    startingAfter?: string | undefined;
    limit: number;
  },
): Promise<{ data: Delivery[]; hasMore: boolean }> {
  if (q.startingAfter !== undefined && !(await getDelivery(ctx.db, q.startingAfter)))
    throw badRequest('invalid_cursor', `startingAfter ${q.startingAfter} names no delivery`, [
      { path: 'startingAfter', message: 'names no delivery' },
    ]);
  const rows = await pageDeliveries(ctx.db, {
    state: q.state,
    webhookId: q.webhookId,
    since: q.since,
    before: q.startingAfter,
    limit: q.limit + 1,
  });
  return { data: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** A synthetic event of any type, through the same enqueue as real ones (for testing receivers). */
export async function emitEvent(ctx: AppContext, orgId: string, type: EventType, data?: Record<string, unknown>): Promise<StoredEvent> {
  // An unknown organization is enqueueEvent's not-found error: its insert checks it, with no statement of its own.
  return await inOutboxTransaction(ctx, async (ctx) => {
    const sample = syntheticIdentity(type, ctx.clock.now());
    // The operator vouches for the shape of a synthetic event's data; it is sent as given.
    return enqueueEvent(ctx, orgId, type, { ...sample, ...data } as unknown as EventDataByType[typeof type]);
  });
}
