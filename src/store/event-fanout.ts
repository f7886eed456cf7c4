/**
 * An event and its deliveries written together: the event row, for an organization that exists,
 * and a delivery row per live webhook of that organization whose event-type filter takes the type
 * (the rule of domain/event-type-filter, in SQL). The statements span the events, organizations,
 * webhooks and deliveries tables, so they live here rather than in any one table's module.
 *
 * On PostgreSQL it is one statement: every round trip of a write costs the node and the server CPU
 * and the write's wall time (docs/scaling.md, "Writes on PostgreSQL"). The deliveries' ids are made
 * by the caller before it knows how many webhooks take the event, so it offers as many as it
 * expects; webhooks past those come back, and get their rows in a statement of their own.
 *
 * @module store/event-fanout
 */
import { sql, type Db } from '../db/database.js';
import { jsonElementsOf, jsonRecords, writesTablesInOneStatement } from '../db/dialect.js';
import { insertDelivery } from './deliveries.js';
import type { EventRow } from './events.js';

/** What every delivery row of the event shares. */
export interface EventDeliveries {
  /** When its first attempt is due (ms). */
  nextAttemptAt: number;
  /** Its created and updated time. */
  at: string;
  /** The resource the event is about (its data.id), which ordered webhooks order by. */
  resourceKey: string | null;
}

/** The delivery ids a write offers: `expected` of them first, then one more per webhook past those. */
export interface DeliveryIds {
  expected: number;
  next: () => string;
}

// Parameters: id, type, body, created_at, trace_context, org_id. No row for an unknown organization.
const INSERT_EVENT = `INSERT INTO events (id, org_id, type, body, created_at, trace_context)
  SELECT ?, o.id, ?, ?, ?, ? FROM organizations o WHERE o.id = ?`;

// Whether webhook `w`'s filter takes the type (parameters: the type, twice): no filter, an empty
// one, or a pattern that is the type or, ending in `*`, a prefix of it.
const ELEMENTS = jsonElementsOf('w.event_types');
const TAKES_TYPE = sql`(w.event_types IS NULL
  OR NOT EXISTS (SELECT 1 FROM (${ELEMENTS}) AS f)
  OR EXISTS (SELECT 1 FROM (${ELEMENTS}) AS f
             WHERE CASE WHEN f.element LIKE '%*'
                        THEN substr(CAST(? AS TEXT), 1, length(f.element) - 1) = substr(f.element, 1, length(f.element) - 1)
                        ELSE f.element = CAST(? AS TEXT) END))`;

// Parameters: the organization, the type twice.
const TAKING_WEBHOOKS = sql`SELECT w.id, w.enabled FROM webhooks w
  WHERE w.org_id = ? AND w.deleted_at IS NULL AND ${TAKES_TYPE} ORDER BY w.id`;

const STATE = `CASE WHEN m.enabled = 1 THEN 'pending' ELSE 'skipped' END`;

// The event, then a delivery for each taking webhook that an offered id numbers (the k-th id for
// the k-th webhook in id order). Its one row: whether the event was written, how many deliveries,
// and each taking webhook past the offered ids (none: NULL). event_tx takes the column's default,
// this transaction's id, as the event's tx_id does.
const INSERT_ALL = sql`WITH event AS (${INSERT_EVENT} RETURNING id, org_id),
matched AS (
  SELECT w.id, w.enabled, ROW_NUMBER() OVER (ORDER BY w.id) AS k FROM webhooks w
  WHERE w.org_id IN (SELECT org_id FROM event) AND w.deleted_at IS NULL AND ${TAKES_TYPE}),
queued AS (
  INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at, resource_key)
  SELECT ids."id", e.id, m.id, e.org_id, ${STATE}, CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT)
  FROM event e CROSS JOIN matched m JOIN ${jsonRecords('ids', [
    ['k', 'integer'],
    ['id', 'text'],
  ])} ON ids."k" = m.k
  RETURNING 1)
SELECT (SELECT COUNT(*) FROM event) AS written, (SELECT COUNT(*) FROM queued) AS queued, m.id, m.enabled
  FROM (SELECT 1 AS one) AS one LEFT JOIN matched m ON m.k > CAST(? AS INTEGER)
  ORDER BY m.id`;

interface Taking {
  id: string | null;
  enabled: number | null;
}

/**
 * Writes the event and its deliveries, in the caller's transaction. Returns how many deliveries
 * were written, or undefined when the organization does not exist (then nothing is).
 */
export async function insertEventWithDeliveries(
  db: Db,
  event: EventRow,
  d: EventDeliveries,
  ids: DeliveryIds,
): Promise<number | undefined> {
  const eventParams = [event.id, event.type, event.body, event.created_at, event.trace_context ?? null, event.org_id];
  let rest: Taking[];
  let queued = 0;
  if (writesTablesInOneStatement(db)) {
    const offered = Array.from({ length: ids.expected }, (_, i) => ({ k: i + 1, id: ids.next() }));
    const rows = await db.all<Taking & { written: number | string; queued: number | string }>(INSERT_ALL, [
      ...eventParams,
      event.type,
      event.type,
      d.nextAttemptAt,
      d.at,
      d.at,
      d.resourceKey,
      JSON.stringify(offered),
      offered.length,
    ]);
    if (Number(rows[0]?.written ?? 0) === 0) return undefined;
    queued = Number(rows[0]!.queued);
    rest = rows.filter((r) => r.id !== null);
  } else {
    if ((await db.run(INSERT_EVENT, eventParams)) === 0) return undefined;
    rest = await db.all<Taking>(TAKING_WEBHOOKS, [event.org_id, event.type, event.type]);
  }
  for (const w of rest) {
    await insertDelivery(db, {
      id: ids.next(),
      eventId: event.id,
      webhookId: w.id!,
      orgId: event.org_id,
      state: Number(w.enabled) === 1 ? 'pending' : 'skipped',
      nextAttemptAt: d.nextAttemptAt,
      at: d.at,
      resourceKey: d.resourceKey,
    });
  }
  return queued + rest.length;
}
