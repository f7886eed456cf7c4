import type { Db } from '../db/open.js';

export interface EventRow {
  id: string;
  org_id: string;
  type: string;
  body: string;
  created_at: string;
}

export function insertEvent(db: Db, row: EventRow): void {
  db.prepare('INSERT INTO events (id, org_id, type, body, created_at) VALUES (?, ?, ?, ?, ?)').run(
    row.id,
    row.org_id,
    row.type,
    row.body,
    row.created_at,
  );
}

export function getEvent(db: Db, orgId: string, id: string): EventRow | undefined {
  return db.prepare('SELECT * FROM events WHERE org_id = ? AND id = ?').get(orgId, id) as EventRow | undefined;
}

/** Events of one organization after an id (exclusive), oldest first: the event stream's resume query. */
export function listEventsAfter(db: Db, orgId: string, afterId: string | null, limit: number): EventRow[] {
  return db
    .prepare('SELECT * FROM events WHERE org_id = ? AND id > ? ORDER BY id LIMIT ?')
    .all(orgId, afterId ?? '', limit) as EventRow[];
}

/** The newest event id of every organization (one seek at the end of the primary key). */
export function newestEventId(db: Db): string | undefined {
  return (db.prepare('SELECT MAX(id) FROM events').pluck().get() as string | null) ?? undefined;
}

/** The organization's newest event id, or undefined when it has none: where a stream that starts "now" begins. */
export function latestEventId(db: Db, orgId: string): string | undefined {
  return db.prepare('SELECT id FROM events WHERE org_id = ? ORDER BY id DESC LIMIT 1').pluck().get(orgId) as string | undefined;
}

/**
 * The id of the organization's newest event created before `createdAt` (ISO, exclusive), or null
 * when none is: the exclusive cursor of a stream that replays from that time. It walks back from the
 * newest event, so its cost follows the number of events being replayed.
 */
export function lastEventIdBefore(db: Db, orgId: string, createdAt: string): string | null {
  return (db.prepare('SELECT id FROM events WHERE org_id = ? AND created_at < ? ORDER BY id DESC LIMIT 1').pluck().get(orgId, createdAt) as string | undefined) ?? null;
}
