/**
 * The `events` table: each event with the exact JSON body that deliveries, replays and the event
 * stream send, and the reads that find events by id or by creation time.
 *
 * @module store/events
 */
import { sql, type Db } from '../db/database.js';
import {
  belowWatermark,
  commitOrderTo,
  commitTxOf,
  idsInCommitOrder,
  inCommitOrder,
  JSON_LIST,
  LEAST,
  positionParams,
  WATERMARK,
} from '../db/dialect.js';
import { idLowerBound } from '../domain/ids.js';

export interface EventRow {
  id: string;
  org_id: string;
  type: string;
  body: string;
  created_at: string;
  /** The W3C traceparent of the span that wrote it (tracing on), which its deliveries continue. */
  trace_context?: string | null;
  /** PostgreSQL: the transaction that wrote it (the column's default); SQLite: 0. Set by the database, never by the writer. */
  tx_id?: number;
}

export async function insertEvent(db: Db, row: EventRow): Promise<void> {
  await db.run('INSERT INTO events (id, org_id, type, body, created_at, trace_context) VALUES (?, ?, ?, ?, ?, ?)', [
    row.id,
    row.org_id,
    row.type,
    row.body,
    row.created_at,
    row.trace_context ?? null,
  ]);
}

/** The organization an event belongs to, or undefined for an unknown id. */
export async function eventOrganization(db: Db, id: string): Promise<string | undefined> {
  return (await db.value('SELECT org_id FROM events WHERE id = ?', [id])) as string | undefined;
}

export async function getEvent(db: Db, orgId: string, id: string): Promise<EventRow | undefined> {
  return (await db.get('SELECT * FROM events WHERE org_id = ? AND id = ?', [orgId, id])) as EventRow | undefined;
}

/**
 * A place in an organization's event stream: after the event `id` written by transaction `tx`.
 * The stream reads in commit order (db/dialect.ts): on SQLite every tx is 0 and ids are commit
 * order already; on PostgreSQL the reads below see only events below the watermark (the snapshot's
 * xmin), and an event written later always has a higher tx than every event read before it.
 */
export interface StreamPosition {
  tx: number;
  id: string;
}

/**
 * Where a stream resumes after the event id `afterId`. Its own transaction's, when the event exists;
 * otherwise (a bound made from a time, or an event retention removed) the lowest transaction of the
 * organization's events numbered after it, so none of them is passed over. Never past the
 * watermark: an id given before its event was readable (from a webhook delivery) must not pass over
 * the transactions still running beside it.
 */
const STREAM_TX_AFTER = sql`SELECT ${LEAST}(COALESCE((SELECT tx_id FROM events WHERE org_id = ? AND id = ?),
                           (SELECT MIN(tx_id) FROM events WHERE org_id = ? AND id > ?)),
                  ${WATERMARK})`;

export async function streamPositionAfter(db: Db, orgId: string, afterId: string | null): Promise<StreamPosition> {
  const id = afterId ?? '';
  if (idsInCommitOrder(db)) return { tx: 0, id };
  const tx = await db.value<number>(STREAM_TX_AFTER, [orgId, id, orgId, id]);
  return { tx: Number(tx), id };
}

const EVENTS_AFTER = sql`SELECT * FROM events WHERE org_id = ? AND ${commitOrderTo('tx_id', 'id', '>')} ${belowWatermark('tx_id')}
  ORDER BY ${inCommitOrder('tx_id', 'id')} LIMIT ?`;

/** Events of one organization after a stream position (exclusive; null: from its first), in commit order: the event stream's read. */
export async function listEventsAfter(db: Db, orgId: string, afterPosition: StreamPosition | null, limit: number): Promise<EventRow[]> {
  const after = afterPosition ?? { tx: 0, id: '' };
  return await db.all<EventRow>(EVENTS_AFTER, [orgId, ...positionParams(db, after), limit]);
}

/** The newest event id of every organization (one seek at the end of the primary key). */
export async function newestEventId(db: Db): Promise<string | undefined> {
  return ((await db.value('SELECT MAX(id) FROM events')) as string | null) ?? undefined;
}

const NEWEST_READABLE = sql`FROM events WHERE org_id = ? ${belowWatermark('tx_id')} ORDER BY ${inCommitOrder('tx_id', 'id', ' DESC')} LIMIT 1`;
const LATEST_EVENT = sql`SELECT id ${NEWEST_READABLE}`;
const LATEST_POSITION = sql`SELECT ${commitTxOf('tx_id')} AS tx, id ${NEWEST_READABLE}`;

/**
 * The organization's newest event id in stream order, or undefined when it has none: where a stream
 * that starts "now" begins. On PostgreSQL, the newest one the stream can read (below the watermark).
 */
export async function latestEventId(db: Db, orgId: string): Promise<string | undefined> {
  return await db.value<string>(LATEST_EVENT, [orgId]);
}

/** The organization's newest event in stream order as a stream position, or null when it has none (below the watermark on PostgreSQL). */
export async function latestStreamPosition(db: Db, orgId: string): Promise<StreamPosition | null> {
  const row = await db.get<{ tx: number | string; id: string }>(LATEST_POSITION, [orgId]);
  return row ? { tx: Number(row.tx), id: row.id } : null;
}

const COUNT_AFTER_BY_TYPE = sql`SELECT type, COUNT(*) AS n FROM events
  WHERE org_id = ? AND ${commitOrderTo('tx_id', 'id', '>')} AND ${commitOrderTo('tx_id', 'id', '<=')} GROUP BY type`;

/**
 * An organization's events after a stream position (all of them for null) up to its newest readable
 * one, counted by type, with that newest position: how many it committed since a cursor. The upper
 * bound is read first, so an event that becomes readable between the two statements is left for the
 * next count, never counted twice or passed over.
 */
export async function countEventsAfterByType(
  db: Db,
  orgId: string,
  after: StreamPosition | null,
): Promise<{ counts: { type: string; count: number }[]; newest: StreamPosition | null }> {
  const newest = await latestStreamPosition(db, orgId);
  if (newest === null) return { counts: [], newest: after };
  const from = after ?? { tx: 0, id: '' };
  const rows = await db.all<{ type: string; n: number | string }>(COUNT_AFTER_BY_TYPE, [
    orgId,
    ...positionParams(db, from),
    ...positionParams(db, newest),
  ]);
  return { counts: rows.map((r) => ({ type: r.type, count: Number(r.n) })), newest };
}

/**
 * The events of an organization created at or after a time, on the (org_id, id) index. An event's id
 * is never earlier than its createdAt (ids only move forward, and take the instant of their event or
 * a later one), so they all lie at or after the time as an id: the walk starts there, not at the
 * organization's first event. Parameters: organization id, then `sinceParams(sinceIso)`.
 */
const CREATED_SINCE = 'org_id = ? AND id >= ? AND created_at >= ?';
const sinceParams = (sinceIso: string) => [idLowerBound('evt', Date.parse(sinceIso)), sinceIso] as const;

/** Ids and types of an organization's events created at or after `sinceIso` (and before `untilIso`), oldest first (a replay). */
export async function eventIdsSince(db: Db, orgId: string, sinceIso: string, untilIso?: string): Promise<{ id: string; type: string }[]> {
  const until = untilIso === undefined ? '' : ' AND created_at < ?';
  return await db.all<{ id: string; type: string }>(`SELECT id, type FROM events WHERE ${CREATED_SINCE}${until} ORDER BY id`, [
    orgId,
    ...sinceParams(sinceIso),
    ...(untilIso === undefined ? [] : [untilIso]),
  ]);
}

/** How many of an organization's events were created in [sinceIso, untilIso): a replay's size, before it runs. */
export async function countEventsSince(db: Db, orgId: string, sinceIso: string, untilIso?: string): Promise<number> {
  const until = untilIso === undefined ? '' : ' AND created_at < ?';
  return Number(
    await db.value(`SELECT COUNT(*) FROM events WHERE ${CREATED_SINCE}${until}`, [
      orgId,
      ...sinceParams(sinceIso),
      ...(untilIso === undefined ? [] : [untilIso]),
    ]),
  );
}

/** Ids and types of these events of the organization (other ids are left out). */
export async function eventTypesOf(db: Db, orgId: string, ids: readonly string[]): Promise<{ id: string; type: string }[]> {
  if (ids.length === 0) return [];
  return await db.all<{ id: string; type: string }>(
    sql`SELECT id, type FROM events WHERE org_id = ? AND id IN (${JSON_LIST}) ORDER BY id`,
    [orgId, JSON.stringify(ids)],
  );
}

export interface EventSummary {
  id: string;
  type: string;
  createdAt: string;
}

/**
 * A page of an organization's events, newest first: before the `before` id (exclusive), of one type,
 * created in [since, until). The walk is on (org_id, id) or, with a type, (org_id, type, id), from
 * the newest id the range allows down to the lowest it allows.
 */
export async function pageEvents(
  db: Db,
  orgId: string,
  f: { type?: string | undefined; since?: string | undefined; until?: string | undefined; before?: string | undefined; limit: number },
): Promise<EventSummary[]> {
  const where = ['org_id = ?'];
  const params: unknown[] = [orgId];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (f.type !== undefined) add('type = ?', f.type);
  if (f.since !== undefined) add('id >= ? AND created_at >= ?', idLowerBound('evt', Date.parse(f.since)), f.since);
  if (f.until !== undefined) add('created_at < ?', f.until);
  if (f.before !== undefined) add('id < ?', f.before);
  return await db.all<EventSummary>(
    `SELECT id, type, created_at AS "createdAt" FROM events WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
    [...params, f.limit],
  );
}

/**
 * Where a stream that replays from a time starts (exclusive): just before the organization's first
 * event, in id order, created at or after `sinceIso`. That walk reads one row when no clock ran
 * ahead, otherwise also the rows a clock ahead numbered past the time. Events numbered after it but
 * created before the time (a clock behind) come too, so none created at or after the time is passed
 * over. PostgreSQL: replayStartInCommitOrder.
 */
export async function replayStartAt(db: Db, orgId: string, sinceIso: string): Promise<string | null> {
  if (!idsInCommitOrder(db)) return await replayStartInCommitOrder(db, orgId, sinceIso);
  const params = sinceParams(sinceIso);
  const [bound] = params;
  const first = (await db.value(`SELECT id FROM events WHERE ${CREATED_SINCE} ORDER BY id LIMIT 1`, [orgId, ...params])) as
    string | undefined;
  if (first === undefined) {
    // None yet: the time itself, or the newest event when a clock ahead already numbered one past it.
    const newest = await latestEventId(db, orgId);
    return newest !== undefined && newest > bound ? newest : bound;
  }
  const before = (await db.value('SELECT id FROM events WHERE org_id = ? AND id < ? ORDER BY id DESC LIMIT 1', [orgId, first])) as
    string | undefined;
  // No event before it: the time, unless the first event's id is the bound itself (random part all zero).
  return before ?? (bound < first ? bound : null);
}

/**
 * replayStartAt on PostgreSQL, where the stream reads in commit order: just before the first event,
 * in (tx, id) order, created at or after the time. Finding it reads the events being replayed, on
 * the database server (once per stream); none yet: where a stream that starts now begins.
 */
async function replayStartInCommitOrder(db: Db, orgId: string, sinceIso: string): Promise<string | null> {
  const first = await db.get<{ tx_id: number; id: string }>(
    `SELECT tx_id, id FROM events WHERE ${CREATED_SINCE} ORDER BY tx_id, id LIMIT 1`,
    [orgId, ...sinceParams(sinceIso)],
  );
  if (first === undefined) return (await latestEventId(db, orgId)) ?? sinceParams(sinceIso)[0];
  const before = await db.value<string>(
    'SELECT id FROM events WHERE org_id = ? AND (tx_id, id) < (?, ?) ORDER BY tx_id DESC, id DESC LIMIT 1',
    [orgId, first.tx_id, first.id],
  );
  return before ?? null;
}

/** Type, body and trace context of each event id given (unknown ids are left out). */
export async function eventBodies(
  db: Db,
  ids: readonly string[],
): Promise<{ id: string; type: string; body: string; traceContext: string | null }[]> {
  if (ids.length === 0) return [];
  return (await db.all(sql`SELECT id, type, body, trace_context AS "traceContext" FROM events WHERE id IN (${JSON_LIST})`, [
    JSON.stringify(ids),
  ])) as { id: string; type: string; body: string; traceContext: string | null }[];
}
