/**
 * Putting an event into the outbox: the event row and a delivery row per live webhook, in the
 * caller's transaction, then a wake-up for this process's dispatcher once it has committed.
 *
 * @module delivery/enqueue
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { firstAttemptDelayMs } from '../domain/retry-schedule.js';
import { insertDelivery } from '../store/deliveries.js';
import { listWebhooks } from '../store/webhooks.js';
import type { EventDataByType, EventType } from '../verify/events.js';
import { writeEvent, writeShapedEvent, type EventHead, type StoredEvent } from './events.js';
import { withTransaction, type Db } from '../db/database.js';
import { inSpan } from '../tracing/spans.js';
import { announce } from '../cluster/wakeups.js';
import { filterTakes } from '../domain/event-type-filter.js';
import { resourceKeyOf } from '../domain/resource-key.js';

/**
 * Writes an event and its deliveries: one row per live webhook of the organization whose event-type
 * filter takes the type, pending when the webhook is enabled now and skipped when it is disabled
 * (kept for a later replay); a webhook that filters the type out gets no row at all. Must run
 * inside the caller's transaction so the change, the event and its deliveries commit
 * together; call wakeDispatcher(ctx) after the commit.
 */
export async function enqueueEvent<T extends EventType>(
  ctx: AppContext,
  orgId: string,
  type: T,
  data: EventDataByType[T],
): Promise<StoredEvent<T>> {
  if (!ctx.db.inTransaction) throw new Error('enqueueEvent must run inside a transaction (use inOutboxTransaction)');
  const now = ctx.clock.now();
  const stored = await writeEvent(ctx.db, now, orgId, type, data);
  writtenIn.get(ctx.db)?.push(type);
  await fanOut(ctx, orgId, stored.event.id, type, now, resourceKeyOf(stored.event));
  return stored;
}

/**
 * enqueueEvent for a body of another shape (an operator alert, src/alerts): the same event row and
 * deliveries, inside the caller's transaction. Its webhooks are woken by the caller's commit signal
 * or the dispatcher's poll.
 */
export async function enqueueShapedEvent<E extends EventHead>(
  ctx: AppContext,
  orgId: string,
  type: string,
  shape: (head: EventHead) => E,
): Promise<E> {
  if (!ctx.db.inTransaction) throw new Error('enqueueShapedEvent must run inside a transaction');
  const now = ctx.clock.now();
  const { event } = await writeShapedEvent(ctx.db, now, orgId, type, shape);
  await fanOut(ctx, orgId, event.id, type, now, resourceKeyOf(event));
  return event;
}

/**
 * A delivery row per live webhook whose filter takes the type: pending when it is enabled now,
 * skipped when it is disabled. Every node's dispatchers hear of them at the commit.
 */
async function fanOut(
  ctx: AppContext,
  orgId: string,
  eventId: string,
  type: string,
  now: number,
  resourceKey: string | null,
): Promise<void> {
  await announce(ctx.db, 'outbox');
  const at = isoAt(now);
  const firstAttempt = firstAttemptAt(ctx, now);
  for (const webhook of await listWebhooks(ctx.db, orgId)) {
    if (!filterTakes(webhook.eventTypes, type)) continue;
    await insertDelivery(ctx.db, {
      id: newId('dlv', now),
      eventId,
      webhookId: webhook.id,
      orgId,
      state: webhook.enabled ? 'pending' : 'skipped',
      nextAttemptAt: firstAttempt,
      at,
      resourceKey,
    });
  }
}

/** When a delivery written (or requeued) at `now` is first due: the schedule's first entry later. */
export function firstAttemptAt(ctx: AppContext, now: number): number {
  return now + firstAttemptDelayMs(ctx.config.delivery.retryScheduleSeconds);
}

/** Tells this process's dispatcher that committed deliveries are waiting (the others hear of them by announce()). */
export function wakeDispatcher(ctx: AppContext): void {
  ctx.signals.outbox.emit();
}

/** The types of the events each open outbox transaction wrote: its span's attribute. */
const writtenIn = new WeakMap<Db, string[]>();

/**
 * Runs `fn` in one write transaction, with a context whose `db` is that transaction, then wakes the
 * dispatcher once it has committed. Called inside a transaction already (an API write in the group
 * commit), `fn` runs in it, all or nothing with the caller's writes: no savepoint of its own, which
 * on PostgreSQL would cost two round trips per write (SAVEPOINT, RELEASE) for an error the caller
 * rolls back anyway.
 */
export async function inOutboxTransaction<R>(ctx: AppContext, fn: (ctx: AppContext) => Promise<R>): Promise<R> {
  const types: string[] = [];
  const run = (ctx: AppContext) => {
    writtenIn.set(ctx.db, types);
    return fn(ctx);
  };
  // The span its events carry (events.trace_context): each delivery of them continues this trace.
  const result = await inSpan('outbox transaction', {}, async (span) => {
    const value = ctx.db.inTransaction ? await run(ctx) : await withTransaction(ctx, run);
    span?.setAttribute('borderd.event_types', types);
    return value;
  });
  wakeDispatcher(ctx);
  return result;
}
