/**
 * Writing an event row: an id the event stream can resume after, and a body serialized once, the
 * exact bytes every delivery and stream sends.
 *
 * @module delivery/events
 */
import type { Db } from '../db/database.js';
import { isoAt } from '../domain/clock.js';
import { newId, sortAfter } from '../domain/ids.js';
import { eventIdFloor, insertEvent, type EventRow } from '../store/events.js';
import { activeTraceparent } from '../tracing/spans.js';
import type { EventDataByType, EventType, WebhookEvent } from '../verify/events.js';

export interface StoredEvent<T extends EventType = EventType> {
  event: WebhookEvent<T>;
  /** The serialized body: the exact bytes signed and sent, never re-serialized. */
  body: string;
}

/** The fields every event body starts with. */
export interface EventHead {
  id: string;
  type: string;
  organizationId: string;
  createdAt: string;
  timestamp: number;
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
  return writeShapedEvent(db, nowMs, orgId, type, (head) => ({ ...head, type, data }));
}

/** writeEvent for a body of another shape than the API's events (an operator alert): `shape` builds it from the common head. */
export async function writeShapedEvent<E extends EventHead>(
  db: Db,
  nowMs: number,
  orgId: string,
  type: string,
  shape: (head: EventHead) => E,
): Promise<{ event: E; body: string }> {
  const { event, body, row } = await shapeEvent(db, nowMs, orgId, type, shape);
  await insertEvent(db, row);
  return { event, body };
}

/**
 * An event's body and the row that stores it, not yet written: what writeShapedEvent inserts, and
 * the outbox's enqueue writes with its deliveries (store/event-fanout.ts).
 */
export async function shapeEvent<E extends EventHead>(
  db: Db,
  nowMs: number,
  orgId: string,
  type: string,
  shape: (head: EventHead) => E,
): Promise<{ event: E; body: string; row: EventRow }> {
  // The event stream and its clients resume with "after this event": where ids are its order, a new
  // id sorts after every committed one (store/events.ts).
  const floor = await eventIdFloor(db);
  if (floor) sortAfter(floor);
  const event = shape({ id: newId('evt', nowMs), type, organizationId: orgId, createdAt: isoAt(nowMs), timestamp: nowMs });
  const body = JSON.stringify(event);
  const row = { id: event.id, org_id: orgId, type, body, created_at: event.createdAt, trace_context: activeTraceparent() ?? null };
  return { event, body, row };
}
