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
import { notFound } from '../domain/errors.js';
import { insertEventWithDeliveries } from '../store/event-fanout.js';
import type { EventRow } from '../store/events.js';
import type { EventDataByType, EventType, WebhookEvent } from '../verify/events.js';
import { shapeEvent, type EventHead, type StoredEvent } from './events.js';
import { withTransaction, type Db } from '../db/database.js';
import { inSpan } from '../tracing/spans.js';
import { announce } from '../cluster/wakeups.js';
import { resourceKeyOf } from '../domain/resource-key.js';

/**
 * Writes an event and its deliveries: one row per live webhook of the organization whose event-type
 * filter takes the type, pending when the webhook is enabled now and skipped when it is disabled
 * (kept for a later replay); a webhook that filters the type out gets no row at all. Must run
 * inside the caller's transaction so the change, the event and its deliveries commit
 * together; call wakeDispatcher(ctx) after the commit. An unknown organization is a not-found
 * error, and nothing is written.
 */
export async function enqueueEvent<T extends EventType>(
  ctx: AppContext,
  orgId: string,
  type: T,
  data: EventDataByType[T],
): Promise<StoredEvent<T>> {
  if (!ctx.db.inTransaction) throw new Error('enqueueEvent must run inside a transaction (use inOutboxTransaction)');
  const now = ctx.clock.now();
  const { event, body, row } = await shapeEvent(ctx.db, now, orgId, type, (head): WebhookEvent<T> => ({ ...head, type, data }));
  await writeWithDeliveries(ctx, row, now, resourceKeyOf(event));
  writtenIn.get(ctx.db)?.push(type);
  return { event, body };
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
  const { event, row } = await shapeEvent(ctx.db, now, orgId, type, shape);
  await writeWithDeliveries(ctx, row, now, resourceKeyOf(event));
  return event;
}

/**
 * How many webhooks took the last event of each organization this process wrote: how many delivery
 * ids the next write offers (store/event-fanout.ts). Only a guess, safe to lose: a write that offers
 * too few writes the rest in one more statement, and ids offered in excess are never used.
 */
const takingLast = new Map<string, number>();
/** Organizations remembered at most; past that the guesses start over. */
const TAKING_LAST_MAX = 10_000;

/**
 * The event row and a delivery row per live webhook whose filter takes the type: pending when it is
 * enabled now, skipped when it is disabled. Every node's dispatchers hear of them at the commit.
 */
async function writeWithDeliveries(ctx: AppContext, row: EventRow, now: number, resourceKey: string | null): Promise<void> {
  await announce(ctx.db, 'outbox');
  const written = await insertEventWithDeliveries(
    ctx.db,
    row,
    { nextAttemptAt: firstAttemptAt(ctx, now), at: isoAt(now), resourceKey },
    { expected: takingLast.get(row.org_id) ?? 1, next: () => newId('dlv', now) },
  );
  if (written === undefined) throw notFound(`organization ${row.org_id}`);
  if (takingLast.size >= TAKING_LAST_MAX && !takingLast.has(row.org_id)) takingLast.clear();
  takingLast.set(row.org_id, written);
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
