/**
 * Deliveries as the operator and the organizations read them: lists and pages, counts by state, a
 * webhook's health, a delivery's view (in flight, waiting behind a head), the backlog a scrape reads
 * and the ordered lines held by a failing head.
 *
 * @module store/delivery-views
 */
import { sql, type Db } from '../db/database.js';
import { indexedBy, JSON_LIST } from '../db/dialect.js';
import { delivered } from '../domain/delivery-rules.js';
import { idLowerBound } from '../domain/ids.js';
import { DELIVERY_STATES, deliveryColumns, lineOf, toDelivery, type Delivery, type DeliveryRow, type DeliveryState } from './deliveries.js';
import type { WebhookOrdering } from './webhooks.js';

/** Rows a by-state listing may read across organizations before it merges them (see listDeliveries). */
const MERGED_LIST_ROWS = 50_000;

export async function listDeliveries(
  db: Db,
  filter: { state?: DeliveryState | undefined; webhookId?: string | undefined; eventId?: string | undefined; limit: number },
): Promise<Delivery[]> {
  const orgs = filter.state && !filter.webhookId && !filter.eventId ? ((await db.column('SELECT id FROM organizations')) as string[]) : [];
  if (orgs.length > 0 && orgs.length * filter.limit <= MERGED_LIST_ROWS) {
    // By state alone: each organization's rows of that state in id order on (org_id, state, id),
    // merged. Left to the planner, the (state, next_attempt_at) index gives every row in the state,
    // sorted by id for the first page. Each organization may give `limit` rows, so a large limit
    // over many organizations takes the single query instead, whose sort is then the smaller cost.
    const byOrg = sql`SELECT ${deliveryColumns()} FROM deliveries ${indexedBy('deliveries_org_state')} WHERE org_id = ? AND state = ? ORDER BY id LIMIT ?`;
    const rows: DeliveryRow[] = [];
    for (const org of orgs) rows.push(...(await db.all<DeliveryRow>(byOrg, [org, filter.state, filter.limit])));
    return rows
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, filter.limit)
      .map(toDelivery);
  }
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.state) {
    where.push('state = ?');
    params.push(filter.state);
  }
  if (filter.webhookId) {
    where.push('webhook_id = ?');
    params.push(filter.webhookId);
  }
  if (filter.eventId) {
    where.push('event_id = ?');
    params.push(filter.eventId);
  }
  const text = `SELECT ${deliveryColumns()} FROM deliveries ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id LIMIT ?`;
  return ((await db.all(text, [...params, filter.limit])) as DeliveryRow[]).map(toDelivery);
}

export interface DeliveryPageFilter {
  state?: DeliveryState | undefined;
  webhookId?: string | undefined;
  /** ISO 8601: only deliveries created at or after it. */
  since?: string | undefined;
  /** Only deliveries older than this one (its id): the next page of a newest-first list. */
  before?: string | undefined;
  limit: number;
}

/**
 * Deliveries newest first (by id, which follows creation), the operator's `outbox list`. Each filter
 * walks an index in id order and stops at `limit`: a webhook's on (webhook_id, id); a state's, as
 * listDeliveries does, per organization on (org_id, state, id) then merged; none, the primary key.
 * `since` bounds the walk by the id range its time allows (an id is never earlier than its row).
 */
export async function pageDeliveries(db: Db, f: DeliveryPageFilter): Promise<Delivery[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (f.before !== undefined) add('id < ?', f.before);
  if (f.since !== undefined) add('id >= ? AND created_at >= ?', idLowerBound('dlv', Date.parse(f.since)), f.since);
  const orgs = f.state && !f.webhookId ? ((await db.column('SELECT id FROM organizations')) as string[]) : [];
  if (orgs.length > 0 && orgs.length * f.limit <= MERGED_LIST_ROWS) {
    const byOrg = sql`SELECT ${deliveryColumns()} FROM deliveries ${indexedBy('deliveries_org_state')}
      WHERE ${['org_id = ?', 'state = ?', ...where].join(' AND ')} ORDER BY id DESC LIMIT ?`;
    const rows: DeliveryRow[] = [];
    for (const org of orgs) rows.push(...(await db.all<DeliveryRow>(byOrg, [org, f.state, ...params, f.limit])));
    return rows
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, f.limit)
      .map(toDelivery);
  }
  if (f.state) add('state = ?', f.state);
  if (f.webhookId) add('webhook_id = ?', f.webhookId);
  const index = f.webhookId ? indexedBy('deliveries_webhook_id') : '';
  const text = sql`SELECT ${deliveryColumns()} FROM deliveries ${index} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT ?`;
  return (await db.all<DeliveryRow>(text, [...params, f.limit])).map(toDelivery);
}

export async function countByState(db: Db): Promise<Record<DeliveryState, number>> {
  const out = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
  for (const r of (await db.all('SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state')) as { state: DeliveryState; n: number }[])
    out[r.state] = r.n;
  return out;
}

export interface WebhookHealth {
  lastSuccessAt: string | null;
  failuresInARow: number;
  pending: number;
}

export async function webhookHealth(db: Db, webhookId: string): Promise<WebhookHealth> {
  // Neither read may walk the webhook's whole history. A delivered row's due time is its send's (it
  // was claimed when due, and a replay makes it due again), so the newest success is among the
  // newest delivered rows by due time: one seek.
  const last = (await db.get(
    sql`SELECT MAX(delivered_at) AS at FROM (SELECT delivered_at FROM deliveries ${indexedBy('deliveries_webhook_due')}
         WHERE webhook_id = ? AND state = 'delivered' ORDER BY next_attempt_at DESC LIMIT 100) AS recent`,
    [webhookId],
  )) as { at: string | null };
  const pending = (await db.get("SELECT COUNT(*) AS n FROM deliveries WHERE webhook_id = ? AND state = 'pending'", [webhookId])) as {
    n: number;
  };
  // Attempts after the last success, newest first. A delivered row's attempts all came before its
  // own success, so every attempt after the newest success is a row's that is not delivered: only
  // those rows are read. (An attempt that started while the newest success was still in flight
  // is counted before it: the count is a health hint, not a record.)
  const rows = (await db.all(
    sql`SELECT a.status_code AS "statusCode" FROM deliveries d ${indexedBy('deliveries_webhook_due')} JOIN delivery_attempts a ON a.delivery_id = d.id
       WHERE d.webhook_id = ? AND d.state IN ('pending', 'failed', 'skipped', 'cancelled') AND a.started_at > ?
       ORDER BY a.started_at DESC, a.id DESC LIMIT 1000`,
    [webhookId, last.at ?? ''],
  )) as { statusCode: number | null }[];
  let failures = 0;
  for (const r of rows) {
    if (delivered(r.statusCode)) break;
    failures++;
  }
  return { lastSuccessAt: last.at, failuresInARow: failures, pending: pending.n };
}

/** A delivery as its organization reads it: the row and its event's type. */
export interface DeliveryView extends Omit<Delivery, 'nextAttemptAt'> {
  /** When it is next tried; null unless pending. */
  nextAttemptAt: string | null;
  eventType: string;
  /** Whether a dispatcher holds the row right now (its attempt is in flight or about to be). */
  inFlight: boolean;
  /**
   * On an ordered webhook, the pending delivery at the head of its line (the oldest pending one of
   * its resource, or of the webhook in strict order), which must succeed or be released before this
   * one may go; null when nothing is ahead of it.
   */
  waitingBehind: string | null;
}

/** The head a pending row waits behind on an ordered webhook: the first pending row of its line ahead of it (lineOf). */
const WAITING_BEHIND = sql`CASE WHEN d.state <> 'pending' OR d.in_line = 0 THEN NULL
    WHEN (SELECT ordering FROM webhooks WHERE id = d.webhook_id) = 'resource' THEN
      (SELECT h.id ${lineOf('resource', 'h', 'd', '<')} ORDER BY h.event_tx, h.event_id LIMIT 1)
    WHEN (SELECT ordering FROM webhooks WHERE id = d.webhook_id) = 'webhook' THEN
      (SELECT h.id ${lineOf('webhook', 'h', 'd', '<')} ORDER BY h.event_tx, h.event_id LIMIT 1)
  END AS waiting_behind`;

const VIEW_COLUMNS = sql`${deliveryColumns('d')}, e.type AS event_type, CASE WHEN d.claimed_by IS NOT NULL AND d.lease_until >= ? THEN 1 ELSE 0 END AS in_flight,
  ${WAITING_BEHIND}`;
type ViewRow = DeliveryRow & { event_type: string; in_flight: number; waiting_behind: string | null };
const toView = (r: ViewRow): DeliveryView => ({
  ...toDelivery(r),
  nextAttemptAt: r.state === 'pending' ? new Date(r.next_attempt_at).toISOString() : null,
  eventType: r.event_type,
  inFlight: r.in_flight === 1,
  waitingBehind: r.waiting_behind,
});

/**
 * One delivery of the organization (another organization's id is as good as unknown); of any
 * organization when `orgId` is undefined (operators' tools).
 */
export async function getDeliveryView(db: Db, orgId: string | undefined, id: string, nowMs: number): Promise<DeliveryView | undefined> {
  const row = (await (orgId === undefined
    ? db.get(sql`SELECT ${VIEW_COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = ?`, [nowMs, id])
    : db.get(sql`SELECT ${VIEW_COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = ? AND d.org_id = ?`, [
        nowMs,
        id,
        orgId,
      ]))) as ViewRow | undefined;
  return row && toView(row);
}

/**
 * A page of one webhook's deliveries, newest first, on (webhook_id, id): before the `before` id
 * (exclusive), in a state, of an event type, created in [since, until). A delivery's id is never
 * earlier than its creation, so `since` also bounds the walk.
 */
export async function pageWebhookDeliveries(
  db: Db,
  webhookId: string,
  nowMs: number,
  f: {
    state?: DeliveryState | undefined;
    eventType?: string | undefined;
    since?: string | undefined;
    until?: string | undefined;
    before?: string | undefined;
    limit: number;
  },
): Promise<DeliveryView[]> {
  const where = ['d.webhook_id = ?'];
  const params: unknown[] = [nowMs, webhookId];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (f.state !== undefined) add('d.state = ?', f.state);
  if (f.eventType !== undefined) add('e.type = ?', f.eventType);
  if (f.since !== undefined) add('d.id >= ? AND d.created_at >= ?', idLowerBound('dlv', Date.parse(f.since)), f.since);
  if (f.until !== undefined) add('d.created_at < ?', f.until);
  if (f.before !== undefined) add('d.id < ?', f.before);
  const rows = await db.all<ViewRow>(
    sql`SELECT ${VIEW_COLUMNS} FROM deliveries d ${indexedBy('deliveries_webhook_id')} JOIN events e ON e.id = d.event_id
        WHERE ${where.join(' AND ')} ORDER BY d.id DESC LIMIT ?`,
    [...params, f.limit],
  );
  return rows.map(toView);
}

/** Where each of these events went: its deliveries, in event then webhook order. */
export async function deliveriesOfEvents(
  db: Db,
  orgId: string,
  eventIds: readonly string[],
): Promise<{ id: string; eventId: string; webhookId: string; state: DeliveryState; attempts: number; lastStatus: number | null }[]> {
  if (eventIds.length === 0) return [];
  return await db.all(
    sql`SELECT id, event_id AS "eventId", webhook_id AS "webhookId", state, attempts, last_status AS "lastStatus"
          FROM deliveries WHERE org_id = ? AND event_id IN (${JSON_LIST}) ORDER BY event_id, webhook_id`,
    [orgId, JSON.stringify(eventIds)],
  );
}

/** One organization's outbox backlog, as a scrape reads it: pending rows (counted up to a cap) and the oldest one's id. */
export interface PendingBacklog {
  /** Pending rows, at most the cap the caller gave. */
  count: number;
  /** When the pending row with the smallest id (the one created first) was created; undefined when nothing is pending. */
  oldestCreatedAt: string | undefined;
}

/**
 * An organization's pending rows from its (org_id, state, id) index: the oldest is the first entry
 * of the range (one row read for its creation time), and the count stops at `cap` entries, so a scrape costs one seek plus at most `cap`
 * index entries whatever the size of the backlog.
 */
export async function pendingBacklog(db: Db, orgId: string, cap: number): Promise<PendingBacklog> {
  const oldestCreatedAt = await db.value<string>(
    sql`SELECT created_at FROM deliveries ${indexedBy('deliveries_org_state')} WHERE org_id = ? AND state = 'pending' ORDER BY id LIMIT 1`,
    [orgId],
  );
  if (oldestCreatedAt === undefined) return { count: 0, oldestCreatedAt };
  const count = await db.value<number>(
    sql`SELECT COUNT(*) FROM (SELECT 1 FROM deliveries ${indexedBy('deliveries_org_state')} WHERE org_id = ? AND state = 'pending' LIMIT ?) capped`,
    [orgId, cap],
  );
  return { count: Number(count ?? 0), oldestCreatedAt };
}

/** A resource whose line on an ordered webhook is held by a head that has failed (see blockedResources). */
export interface BlockedResource {
  orgId: string;
  webhookId: string;
  ordering: WebhookOrdering;
  /** The event's data.id; on a webhook in strict order, the head's resource (the whole webhook waits). */
  resource: string | null;
  /** The pending delivery at the head of the line, and its event. */
  headId: string;
  eventId: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string;
  /** Pending deliveries behind the head. */
  waiting: number;
}

/**
 * Ordered lines held by a failing head: a pending head (nothing pending ahead of it) that has been
 * tried at least once without success, with at least one pending delivery behind it. The heads are
 * found among the rows waiting for a retry (the partial index deliveries_retrying), so the read
 * follows the failing rows, not the backlog.
 */
export async function blockedResources(
  db: Db,
  f: { orgId?: string | undefined; webhookId?: string | undefined; limit: number },
): Promise<BlockedResource[]> {
  const where = ["r.state = 'pending'", 'r.attempts > 0', 'r.in_line = 1', "w.ordering <> 'none'"];
  const params: unknown[] = [];
  if (f.orgId !== undefined) {
    where.push('r.org_id = ?');
    params.push(f.orgId);
  }
  if (f.webhookId !== undefined) {
    where.push('r.webhook_id = ?');
    params.push(f.webhookId);
  }
  // One form per ordering, so each seeks its own partial index (an OR of the two would walk the webhook's whole line).
  const ahead = (x: string, cmp: '<' | '>') => ({ resource: lineOf('resource', x, 'r', cmp), webhook: lineOf('webhook', x, 'r', cmp) });
  const before = ahead('a', '<');
  const after = ahead('b', '>');
  const rows = await db.all<Omit<BlockedResource, 'nextAttemptAt'> & { nextAttemptAt: number }>(
    sql`SELECT * FROM (
       SELECT r.org_id AS "orgId", r.webhook_id AS "webhookId", w.ordering, r.resource_key AS resource, r.id AS "headId",
              r.event_id AS "eventId", r.attempts, r.last_status AS "lastStatus", r.last_error AS "lastError",
              r.next_attempt_at AS "nextAttemptAt",
              CASE WHEN w.ordering = 'resource' THEN (SELECT COUNT(*) ${after.resource}) ELSE (SELECT COUNT(*) ${after.webhook}) END AS waiting
         FROM deliveries r ${indexedBy('deliveries_retrying')} JOIN webhooks w ON w.id = r.webhook_id
        WHERE ${where.join(' AND ')}
          AND CASE WHEN w.ordering = 'resource' THEN NOT EXISTS (SELECT 1 ${before.resource}) ELSE NOT EXISTS (SELECT 1 ${before.webhook}) END
     ) lines WHERE waiting > 0 ORDER BY "webhookId", "eventId" LIMIT ?`,
    [...params, f.limit],
  );
  return rows.map((r) => ({ ...r, waiting: Number(r.waiting), nextAttemptAt: new Date(Number(r.nextAttemptAt)).toISOString() }));
}
