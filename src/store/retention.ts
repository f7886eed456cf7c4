import type { Db } from '../db/open.js';

/**
 * The SQL of outbox retention. Each function deletes at most `limit` rows of its kind and says how
 * many, so the job runs in short transactions and loops until a pass deletes nothing.
 */

/** Delivered deliveries delivered before `before` (ISO), with their attempts. */
export function deleteDeliveredBefore(db: Db, before: string, limit: number): number {
  const ids = db
    .prepare("SELECT id FROM deliveries WHERE state = 'delivered' AND delivered_at < ? LIMIT ?")
    .pluck()
    .all(before, limit) as string[];
  if (ids.length === 0) return 0;
  const list = JSON.stringify(ids);
  db.prepare('DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))').run(list);
  return db.prepare('DELETE FROM deliveries WHERE id IN (SELECT value FROM json_each(?))').run(list).changes;
}

/** Events created before `before` (ISO) that have no pending delivery, with their deliveries, attempts and signatures. */
export function deleteEventsBefore(db: Db, before: string, limit: number): number {
  const ids = db
    .prepare(
      `SELECT e.id FROM events e
        WHERE e.created_at < ?
          AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.state = 'pending')
        LIMIT ?`,
    )
    .pluck()
    .all(before, limit) as string[];
  if (ids.length === 0) return 0;
  const list = JSON.stringify(ids);
  db.prepare(
    'DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event_id IN (SELECT value FROM json_each(?)))',
  ).run(list);
  db.prepare('DELETE FROM deliveries WHERE event_id IN (SELECT value FROM json_each(?))').run(list);
  db.prepare('DELETE FROM event_signatures WHERE event_id IN (SELECT value FROM json_each(?))').run(list);
  return db.prepare('DELETE FROM events WHERE id IN (SELECT value FROM json_each(?))').run(list).changes;
}
