/**
 * The SQL of outbox retention. Each function deletes at most `limit` rows of its kind and says how
 * many, so the job runs in short transactions and loops until a pass deletes nothing. The database
 * has no statistics (no ANALYZE), and these statements run on the daemon's main thread under the
 * write lock, so each plan is pinned to one that never reads the whole pending backlog per row, or
 * every younger row.
 *
 * @module store/retention
 */
import { sql, type Db } from '../db/database.js';
import { indexedBy, JSON_LIST, NOT_INDEXED } from '../db/dialect.js';

/**
 * Delivered deliveries delivered before `before` (ISO), with their attempts. A delivered row's due
 * time is at or before its send (it was claimed when due), so `next_attempt_at` bounds the walk of
 * deliveries_due too: the last pass, which finds nothing, stops at the cutoff instead of reading
 * every younger delivered row.
 */
export async function deleteDeliveredBefore(db: Db, before: string, limit: number): Promise<number> {
  const ids = (await db.column("SELECT id FROM deliveries WHERE state = 'delivered' AND next_attempt_at < ? AND delivered_at < ? LIMIT ?", [
    Date.parse(before),
    before,
    limit,
  ])) as string[];
  if (ids.length === 0) return 0;
  const list = JSON.stringify(ids);
  await db.run(sql`DELETE FROM delivery_attempts WHERE delivery_id IN (${JSON_LIST})`, [list]);
  return await db.run(sql`DELETE FROM deliveries WHERE id IN (${JSON_LIST})`, [list]);
}

/**
 * Events created before `before` (ISO) that have no pending delivery, with their deliveries,
 * attempts and signatures. `+d.state`: the pending probe seeks the event's own deliveries; left to
 * itself, SQLite takes the (state, next_attempt_at) index and reads every pending row for each old
 * event. The walk of the events themselves goes by createdAt, not by id: an id's time can run ahead
 * of its createdAt (ids sort after those of a process whose clock was ahead), and such events would
 * be kept that much longer. So the last pass, which finds nothing, reads every event once.
 */
export async function deleteEventsBefore(db: Db, before: string, limit: number): Promise<number> {
  const ids = (await db.column(
    sql`SELECT e.id FROM events e
        WHERE e.created_at < ?
          AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND ${NOT_INDEXED}d.state = 'pending')
        LIMIT ?`,
    [before, limit],
  )) as string[];
  return ids.length === 0 ? 0 : deleteEvents(db, ids);
}

/**
 * Test events (type `test.…`) created before `before` (ISO) that have no pending delivery, with
 * their deliveries, attempts and signatures: their own, shorter retention. The walk goes over the
 * partial index events_test_created, which holds test events alone; the pending probe as in
 * deleteEventsBefore.
 */
export async function deleteTestEventsBefore(db: Db, before: string, limit: number): Promise<number> {
  const ids = (await db.column(
    sql`SELECT e.id FROM events e ${indexedBy('events_test_created')}
        WHERE e.type LIKE 'test.%' AND e.created_at < ?
          AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND ${NOT_INDEXED}d.state = 'pending')
        LIMIT ?`,
    [before, limit],
  )) as string[];
  return ids.length === 0 ? 0 : deleteEvents(db, ids);
}

/** Deletes these events with their deliveries, attempts and signatures. */
export async function deleteEvents(db: Db, ids: readonly string[]): Promise<number> {
  const list = JSON.stringify(ids);
  await db.run(sql`DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event_id IN (${JSON_LIST}))`, [
    list,
  ]);
  await db.run(sql`DELETE FROM deliveries WHERE event_id IN (${JSON_LIST})`, [list]);
  await db.run(sql`DELETE FROM event_signatures WHERE event_id IN (${JSON_LIST})`, [list]);
  return await db.run(sql`DELETE FROM events WHERE id IN (${JSON_LIST})`, [list]);
}
