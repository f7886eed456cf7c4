/**
 * Writing an event row: an id that follows commit order across processes, and a body serialized
 * once, the exact bytes every delivery and stream sends.
 *
 * @module delivery/events
 */
import { holdLock, type Db } from '../db/database.js';
import { isoAt } from '../domain/clock.js';
import { newId, sortAfter } from '../domain/ids.js';
import { insertEvent, newestEventId } from '../store/events.js';
import type { EventDataByType, EventType, WebhookEvent } from '../verify/events.js';

export interface StoredEvent<T extends EventType = EventType> {
  event: WebhookEvent<T>;
  /** The serialized body: the exact bytes signed and sent, never re-serialized. */
  body: string;
}

/**
 * Writes one event row. Call it inside the SQLite transaction of the change that caused the event,
 * so both or neither exist. Fan-out to webhooks (delivery rows) is the outbox's enqueue, which
 * calls this; the event stream reads these rows directly.
 */
export async function writeEvent<T extends EventType>(
  db: Db,
  nowMs: number,
  orgId: string,
  type: T,
  data: EventDataByType[T],
): Promise<StoredEvent<T>> {
  // An organization's event ids follow commit order, across every process writing the database: the
  // event stream and its clients resume with "after this id", so an event committed after a higher
  // id (made by another process in the same millisecond, or by a clock ahead) would never be
  // streamed. Under the organization's event lock no other commit can come between this read and
  // the insert.
  await holdLock(db, `events:${orgId}`);
  const newest = await newestEventId(db);
  if (newest) sortAfter(newest);
  const event: WebhookEvent<T> = {
    id: newId('evt', nowMs),
    type,
    organizationId: orgId,
    createdAt: isoAt(nowMs),
    timestamp: nowMs,
    data,
  };
  const body = JSON.stringify(event);
  await insertEvent(db, { id: event.id, org_id: orgId, type, body, created_at: event.createdAt });
  return { event, body };
}
