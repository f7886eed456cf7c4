/**
 * The `deliveries` table, the outbox: one row per (event, webhook) with its state, retry step, due
 * time and lease, and the row's place in its webhook's line when the webhook asks for order. What
 * reads and changes the rows is split by what it owns: claims and leases (store/delivery-claims.ts),
 * an attempt's result and the lines it holds (store/delivery-results.ts), lists, pages and views
 * (store/delivery-views.ts). Claims, sends and results are conditional on the lease, so two
 * processes on one database never send the same attempt at once.
 *
 * @module store/deliveries
 */
import { sql, type Db, type Sql } from '../db/database.js';
import { commitOrderOf, JSON_LIST, jsonTextAt } from '../db/dialect.js';
import { TEST_EVENT_PREFIX } from '../verify/test-events.js';

export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'skipped', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface Delivery {
  id: string;
  eventId: string;
  webhookId: string;
  orgId: string;
  state: DeliveryState;
  attempts: number;
  step: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A row of `deliveries` as it is read. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  webhook_id: string;
  org_id: string;
  state: DeliveryState;
  attempts: number;
  step: number;
  next_attempt_at: number;
  claimed_by: string | null;
  lease_until: number | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Every column of a delivery as it is read: the select list of whole rows, kept in step with DeliveryRow by its type. */
const ROW_COLUMNS = Object.keys({
  id: 1,
  event_id: 1,
  webhook_id: 1,
  org_id: 1,
  state: 1,
  attempts: 1,
  step: 1,
  next_attempt_at: 1,
  claimed_by: 1,
  lease_until: 1,
  last_status: 1,
  last_error: 1,
  delivered_at: 1,
  created_at: 1,
  updated_at: 1,
} satisfies Record<keyof DeliveryRow, 1>);

/** The select list of a DeliveryRow, of the table as `alias` when given. */
export const deliveryColumns = (alias?: string): string => ROW_COLUMNS.map((c) => (alias ? `${alias}.${c}` : c)).join(', ');

export const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  eventId: r.event_id,
  webhookId: r.webhook_id,
  orgId: r.org_id,
  state: r.state,
  attempts: r.attempts,
  step: r.step,
  nextAttemptAt: new Date(r.next_attempt_at).toISOString(),
  lastStatus: r.last_status,
  lastError: r.last_error,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function insertDelivery(
  db: Db,
  d: {
    id: string;
    eventId: string;
    webhookId: string;
    orgId: string;
    state: DeliveryState;
    nextAttemptAt: number;
    at: string;
    /** The resource the event is about (its data.id), which ordered webhooks order by; absent or null for none. */
    resourceKey?: string | null;
    /** False for a test event's delivery, which an ordered webhook's line leaves out (absent: true). */
    inLine?: boolean;
  },
): Promise<void> {
  // event_tx is the column's default: the row is written in its event's transaction.
  await db.run(
    `INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at, resource_key, in_line)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [d.id, d.eventId, d.webhookId, d.orgId, d.state, d.nextAttemptAt, d.at, d.at, d.resourceKey ?? null, d.inLine === false ? 0 : 1],
  );
}

/**
 * A requeue: the resource key, commit position and place in a line are taken from the event (its
 * data.id, its transaction, whether it is a test event), so a requeued row has them whatever wrote
 * the row first (and the requeue's own transaction is not the event's).
 */
const REQUEUE = sql`INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at, resource_key, event_tx, in_line)
       SELECT ?, ?, ?, ?, 'pending', CAST(? AS BIGINT), ?, ?, ${jsonTextAt('e.body', 'data', 'id')}, e.tx_id,
              CASE WHEN e.type LIKE ? THEN 0 ELSE 1 END FROM events e WHERE e.id = ?
       ON CONFLICT (event_id, webhook_id) DO UPDATE SET state = 'pending', step = 0, next_attempt_at = excluded.next_attempt_at,
         updated_at = excluded.updated_at, resource_key = excluded.resource_key, event_tx = excluded.event_tx, in_line = excluded.in_line
       WHERE deliveries.state <> 'pending'`;

/**
 * Puts (event, webhook) back in the queue: a new pending row, or the existing row reset to a fresh
 * retry cycle whose first attempt is at `nextAttemptAt`. A row already pending is left alone. A lease
 * is kept: a row still being sent (disabled, then replayed, while in flight) becomes claimable only
 * once that send has recorded its result, so it is never sent twice at once. An event the retention
 * job deleted since the replay listed it is left out. Returns true when something was queued.
 */
export async function requeueDelivery(
  db: Db,
  d: { id: string; eventId: string; webhookId: string; orgId: string; nextAttemptAt: number; at: string },
): Promise<boolean> {
  const changed = await db.run(REQUEUE, [
    d.id,
    d.eventId,
    d.webhookId,
    d.orgId,
    d.nextAttemptAt,
    d.at,
    d.at,
    `${TEST_EVENT_PREFIX}%`,
    d.eventId,
  ]);
  return changed > 0;
}

export async function getDelivery(db: Db, id: string): Promise<Delivery | undefined> {
  const row = await db.get<DeliveryRow>(`SELECT ${deliveryColumns()} FROM deliveries WHERE id = ?`, [id]);
  return row && toDelivery(row);
}

/**
 * Marks a webhook's pending rows as `state` (skipped when disabled, cancelled when deleted). Leases
 * stay: a row being sent right now is still owned by its sender, which records the result (a 2xx
 * makes it delivered) and only then lets go of it.
 */
export async function setPendingState(db: Db, webhookId: string, state: 'skipped' | 'cancelled', at: string): Promise<number> {
  return await db.run("UPDATE deliveries SET state = ?, updated_at = ? WHERE webhook_id = ? AND state = 'pending'", [state, at, webhookId]);
}

/** Marks these rows delivered at `deliveredAt` with no attempt recorded: a history of past successes, such as retention prunes. */
export async function setDelivered(db: Db, ids: readonly string[], deliveredAt: string): Promise<number> {
  return await db.run(sql`UPDATE deliveries SET state = 'delivered', delivered_at = ?, updated_at = ? WHERE id IN (${JSON_LIST})`, [
    deliveredAt,
    deliveredAt,
    JSON.stringify(ids),
  ]);
}

/**
 * Whether the row `x` is pending in the same line as the row `row`, ahead of it (`<`) or behind it
 * (`>`); lineOf is the FROM and WHERE of a subquery over such rows `x`. A line is a webhook's rows
 * of one resource (`resource`) or all of them (`webhook`), in commit order: (event_tx, event_id),
 * the event's transaction and id (on SQLite event_tx is 0 and ids are commit order). A test event's
 * delivery (in_line = 0) is in no line. One seek in the partial indexes of migration 028. An event
 * without a resource (NULL key) has no line of its own.
 */
export const sameLine = (ordering: 'resource' | 'webhook', x: string, row: string, cmp: '<' | '>'): Sql =>
  sql`${x}.webhook_id = ${row}.webhook_id${ordering === 'resource' ? ` AND ${x}.resource_key = ${row}.resource_key` : ''}
     AND ${x}.state = 'pending' AND ${x}.in_line = 1 AND ${commitOrderOf([`${x}.event_tx`, `${x}.event_id`], cmp, [`${row}.event_tx`, `${row}.event_id`])}`;
export const lineOf = (ordering: 'resource' | 'webhook', x: string, row: string, cmp: '<' | '>'): Sql =>
  sql`FROM deliveries ${x} WHERE ${sameLine(ordering, x, row, cmp)}`;

/** Deletes one delivery that has no attempts recorded (its attempts would keep it). */
export async function deleteDelivery(db: Db, id: string): Promise<void> {
  await db.run('DELETE FROM deliveries WHERE id = ?', [id]);
}
