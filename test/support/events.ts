/**
 * Every event an organization has committed, in id order, whatever the stream may read yet: on
 * PostgreSQL the stream's read (listEventsAfter) waits for the oldest running transaction of the
 * whole server, which a test running beside this one on the shared server may hold open.
 */
import type { Db } from '../../src/db/database.js';
import type { EventRow } from '../../src/store/events.js';

export const committedEvents = (db: Db, orgId: string): Promise<EventRow[]> =>
  db.all<EventRow>('SELECT * FROM events WHERE org_id = ? ORDER BY id', [orgId]);
