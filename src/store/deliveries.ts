/**
 * The `deliveries` table, the outbox: one row per (event, webhook) with its state, retry step, due
 * time and lease. Claims, sends and results are conditional on the lease, so two processes on one
 * file never send the same attempt at once.
 *
 * @module store/deliveries
 */
import { GREATEST, indexedBy, JSON_LIST, sql, type Db, type Dialect, type Sql } from '../db/database.js';
import { delivered } from '../domain/delivery-rules.js';
import { idLowerBound } from '../domain/ids.js';
import { TEST_EVENT_PREFIX } from '../verify/test-events.js';
import { WATERMARK } from './events.js';
import type { WebhookOrdering } from './webhooks.js';

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

interface Row {
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

const toDelivery = (r: Row): Delivery => ({
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

/** An event row's resource key read from its body (data.id), as insertDelivery's caller takes it from the event. */
const RESOURCE_KEY_OF_BODY = {
  sqlite: "CAST(e.body -> 'data' ->> 'id' AS TEXT)",
  postgres: "e.body::json -> 'data' ->> 'id'",
};

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
  // The resource key, commit position and place in a line are taken from the event, so a requeued
  // row has them whatever wrote the row first (and the requeue's own transaction is not the event's).
  const changed = await db.run(
    `INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, next_attempt_at, created_at, updated_at, resource_key, event_tx, in_line)
       SELECT ?, ?, ?, ?, 'pending', CAST(? AS BIGINT), ?, ?, ${RESOURCE_KEY_OF_BODY[db.dialect]}, e.tx_id,
              CASE WHEN e.type LIKE ? THEN 0 ELSE 1 END FROM events e WHERE e.id = ?
       ON CONFLICT (event_id, webhook_id) DO UPDATE SET state = 'pending', step = 0, next_attempt_at = excluded.next_attempt_at,
         updated_at = excluded.updated_at, resource_key = excluded.resource_key, event_tx = excluded.event_tx, in_line = excluded.in_line
       WHERE deliveries.state <> 'pending'`,
    [d.id, d.eventId, d.webhookId, d.orgId, d.nextAttemptAt, d.at, d.at, `${TEST_EVENT_PREFIX}%`, d.eventId],
  );
  return changed > 0;
}

export async function getDelivery(db: Db, id: string): Promise<Delivery | undefined> {
  const row = (await db.get('SELECT * FROM deliveries WHERE id = ?', [id])) as Row | undefined;
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

/** An enabled, live webhook with at least one due, unleased pending row. */
export interface DueWebhook {
  id: string;
  orgId: string;
  url: string;
  /** The order its deliveries go out in (which of its due rows a claim may take); absent: none. */
  ordering?: WebhookOrdering;
}

const DUE_WEBHOOKS = sql`SELECT w.id, w.org_id AS "orgId", w.url, w.ordering FROM webhooks w
  WHERE w.enabled = 1 AND w.deleted_at IS NULL
    AND CASE WHEN w.ordering = 'webhook' THEN
      EXISTS (SELECT 1 FROM deliveries d
               WHERE d.id = (SELECT h.id FROM deliveries h WHERE h.webhook_id = w.id AND h.state = 'pending' AND h.in_line = 1
                              ORDER BY h.event_tx, h.event_id LIMIT 1)
                 AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?))
      OR EXISTS (SELECT 1 FROM deliveries d ${indexedBy('deliveries_pending_unlined')}
                  WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.in_line = 0 AND d.next_attempt_at <= ?
                    AND (d.lease_until IS NULL OR d.lease_until < ?))
    ELSE EXISTS (SELECT 1 FROM deliveries d
                  WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.next_attempt_at <= ?
                    AND (d.lease_until IS NULL OR d.lease_until < ?)) END
  ORDER BY w.id`;

/**
 * Enabled live webhooks that have something due now. One index probe per webhook on
 * (webhook_id, state, next_attempt_at): the cost follows the number of webhooks, never the backlog
 * (a probe passes over at most the rows leased right now, which the concurrency caps bound). A
 * webhook in strict order is due when the head of its line is, or a test event's delivery (which
 * is in no line): a line held by a head waiting for its retry is not reported due at every pass.
 */
export async function dueWebhooks(db: Db, nowMs: number): Promise<DueWebhook[]> {
  return await db.all<DueWebhook>(DUE_WEBHOOKS, [nowMs, nowMs, nowMs, nowMs, nowMs, nowMs]);
}

/** A row claimed by `claimDue`: the lease is held by the caller. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  attempts: number;
  step: number;
  nextAttemptAt: number;
}

/**
 * Whether the row `x` is pending in the same line as the row `row`, ahead of it (`<`) or behind it
 * (`>`); lineOf is the FROM and WHERE of a subquery over such rows `x`. A line is a webhook's rows
 * of one resource (`resource`) or all of them (`webhook`), in commit order: (event_tx, event_id),
 * the event's transaction and id (on SQLite event_tx is 0 and ids are commit order). A test event's
 * delivery (in_line = 0) is in no line. One seek in the partial indexes of migration 028. An event
 * without a resource (NULL key) has no line of its own.
 */
const sameLine = (ordering: 'resource' | 'webhook', x: string, row: string, cmp: '<' | '>'): Sql =>
  sql`${x}.webhook_id = ${row}.webhook_id${ordering === 'resource' ? ` AND ${x}.resource_key = ${row}.resource_key` : ''}
     AND ${x}.state = 'pending' AND ${x}.in_line = 1 AND ${commitOrder(x, row, cmp)}`;
const lineOf = (ordering: 'resource' | 'webhook', x: string, row: string, cmp: '<' | '>'): Sql =>
  sql`FROM deliveries ${x} WHERE ${sameLine(ordering, x, row, cmp)}`;

/**
 * (x.event_tx, x.event_id) before (`<`) or after (`>`) the row `row`'s, in a form each engine's
 * index seeks. SQLite bounds an index by a row value of constants only (one of another row's columns
 * would make it walk the line), and its event_tx is always 0: it compares ids within the same tx.
 */
const commitOrder = (x: string, row: string, cmp: '<' | '>') => ({
  sqlite: `${x}.event_tx = ${row}.event_tx AND ${x}.event_id ${cmp} ${row}.event_id`,
  postgres: `(${x}.event_tx, ${x}.event_id) ${cmp} (${row}.event_tx, ${row}.event_id)`,
});

/** One engine's text of a statement or fragment. */
const textFor = (text: Sql, dialect: Dialect): string => (typeof text === 'string' ? text : text[dialect]);

/**
 * The ids of a webhook (the parameter, twice) a strict-order claim may take: the head of its line
 * (one seek at the start of deliveries_pending_order) and its test events' deliveries, which are in
 * no line (deliveries_pending_unlined). A line held by a head waiting for a retry costs these two
 * seeks, not its backlog.
 */
const HEAD_OR_UNLINED = sql`SELECT head.id FROM (SELECT h.id FROM deliveries h WHERE h.webhook_id = ? AND h.state = 'pending' AND h.in_line = 1
                                                  ORDER BY h.event_tx, h.event_id LIMIT 1) head
   UNION ALL SELECT u.id FROM deliveries u ${indexedBy('deliveries_pending_unlined')} WHERE u.webhook_id = ? AND u.state = 'pending' AND u.in_line = 0`;
const HEAD_OR_UNLINED_PARAMS = 2;

/**
 * Per resource, which of a webhook's due rows a claim may take: a candidate row `c` is eligible
 * when nothing of its line is pending ahead of it (lineOf), one seek per candidate. A pending row
 * ahead may be leased (in flight, or held by a node that died mid-send), waiting for a retry, or not
 * due yet: in every case its outcome is not a recorded success, so nothing behind it goes. A test
 * event's delivery waits for nothing. In strict order only the head can be eligible, so the
 * candidates are the head and the test events' deliveries (HEAD_OR_UNLINED).
 */
const RESOURCE_ELIGIBLE = sql`AND (c.in_line = 0 OR NOT EXISTS (SELECT 1 ${lineOf('resource', 'ahead', 'c', '<')}))`;

/**
 * On PostgreSQL, what an ordered claim also asks of a candidate: that its event's transaction is
 * older than every one still running. An event of a transaction still running, and so its delivery
 * row, is not visible yet; a later event of its line committed meanwhile must not pass it.
 */
const COMMITTED_BEFORE_ALL_RUNNING = `AND c.event_tx < ${WATERMARK}`;

/**
 * Leases up to `limit` of one webhook's oldest due rows in a single conditional UPDATE (an index
 * range scan of what it returns): a row leased by anyone else is never taken, so two processes on
 * one database never send the same attempt at once. On PostgreSQL the rows are locked as they are
 * picked, and rows another node is claiming right now are passed over (SKIP LOCKED) instead of
 * waited for. Run it inside the caller's write transaction. SQLite's `+state` keeps its planner on
 * the primary key for the outer UPDATE: without it SQLite picks the (state, next_attempt_at) index
 * and walks every pending row, so each claim would cost the backlog. `candidates` is where the rows
 * come from: in strict order SQLite starts from the head (CROSS JOIN keeps that order) and reads each
 * candidate by its id (`+` keeps the webhook's due rows index out), or it would walk the due rows.
 */
const claimDueSqlite = (eligible: string, candidates = 'deliveries c') => {
  const byId = candidates === 'deliveries c' ? '' : '+';
  return `UPDATE deliveries SET claimed_by = ?, lease_until = ?
  WHERE id IN (SELECT c.id FROM ${candidates}
               WHERE ${byId}c.webhook_id = ? AND ${byId}c.state = 'pending' AND c.next_attempt_at <= ?
                 AND (c.lease_until IS NULL OR c.lease_until < ?)
                 AND c.id NOT IN (SELECT value FROM json_each(?))
                 ${eligible}
               ORDER BY c.next_attempt_at, c.id LIMIT ?)
    AND +state = 'pending' AND (lease_until IS NULL OR lease_until < ?)
  RETURNING id, event_id AS "eventId", attempts, step, next_attempt_at AS "nextAttemptAt"`;
};

/**
 * PostgreSQL picks the rows in a CTE, which runs once: as `WHERE id IN (subquery … LIMIT)` the
 * planner may join the subquery instead and take more rows than the limit.
 */
const claimDuePostgres = (eligible: string) => `WITH picked AS (
    SELECT c.id FROM deliveries c
     WHERE c.webhook_id = ? AND c.state = 'pending' AND c.next_attempt_at <= ?
       AND (c.lease_until IS NULL OR c.lease_until < ?)
       AND c.id NOT IN (SELECT json_array_elements_text(?::json))
       ${eligible}
     ORDER BY c.next_attempt_at, c.id LIMIT ? FOR UPDATE SKIP LOCKED)
  UPDATE deliveries SET claimed_by = ?, lease_until = ? FROM picked WHERE deliveries.id = picked.id
  RETURNING deliveries.id, event_id AS "eventId", attempts, step, next_attempt_at AS "nextAttemptAt"`;

const CLAIM_DUE_SQLITE: Record<WebhookOrdering, string> = {
  none: claimDueSqlite(''),
  resource: claimDueSqlite(textFor(RESOURCE_ELIGIBLE, 'sqlite')),
  webhook: claimDueSqlite('AND c.id = k.id', `(${textFor(HEAD_OR_UNLINED, 'sqlite')}) k CROSS JOIN deliveries c`),
};
const CLAIM_DUE_POSTGRES: Record<WebhookOrdering, string> = {
  none: claimDuePostgres(''),
  resource: claimDuePostgres(`${textFor(RESOURCE_ELIGIBLE, 'postgres')} ${COMMITTED_BEFORE_ALL_RUNNING}`),
  webhook: claimDuePostgres(`AND c.id IN (${textFor(HEAD_OR_UNLINED, 'postgres')}) ${COMMITTED_BEFORE_ALL_RUNNING}`),
};

export async function claimDue(
  db: Db,
  webhookId: string,
  owner: string,
  nowMs: number,
  leaseUntil: number,
  limit: number,
  held: readonly string[] = [],
  ordering: WebhookOrdering = 'none',
): Promise<ClaimedDelivery[]> {
  // `held`: rows the caller still has in hand (queued, in flight, result not written). Their lease
  // can only have ended by a jump of the wall clock; taking them again would send them twice at once.
  const heldList = held.length ? JSON.stringify(held) : '[]';
  // The head's parameters: in PostgreSQL's WHERE, in SQLite's FROM.
  const head = ordering === 'webhook' ? Array.from({ length: HEAD_OR_UNLINED_PARAMS }, () => webhookId) : [];
  const rows =
    db.dialect === 'postgres'
      ? await db.all<ClaimedDelivery>(CLAIM_DUE_POSTGRES[ordering], [webhookId, nowMs, nowMs, heldList, ...head, limit, owner, leaseUntil])
      : await db.all<ClaimedDelivery>(CLAIM_DUE_SQLITE[ordering], [
          owner,
          leaseUntil,
          ...head,
          webhookId,
          nowMs,
          nowMs,
          heldList,
          limit,
          nowMs,
        ]);
  return rows.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The lease holder, state and retry step of a row, read when its attempt's result is recorded. */
export async function leaseOf(
  db: Db,
  id: string,
): Promise<{ state: DeliveryState; step: number; nextAttemptAt: number; claimedBy: string | null } | undefined> {
  return (await db.get('SELECT state, step, next_attempt_at AS "nextAttemptAt", claimed_by AS "claimedBy" FROM deliveries WHERE id = ?', [
    id,
  ])) as { state: DeliveryState; step: number; nextAttemptAt: number; claimedBy: string | null } | undefined;
}

/**
 * Whether the webhook's most recently tried pending row got no answer at all on its last attempt (a
 * timeout, a refused or reset connection), borderd's own failures (`borderdFaultPrefix`) not counted: how a
 * process that starts learns an endpoint had stopped answering. One seek in the partial index
 * deliveries_retrying (migration 013), whatever the backlog.
 */
export async function lastRetryGotNoAnswer(db: Db, webhookId: string, borderdFaultPrefix: string): Promise<boolean> {
  const row = (await db.get(
    sql`SELECT last_status AS status, last_error AS error FROM deliveries ${indexedBy('deliveries_retrying')}
        WHERE webhook_id = ? AND state = 'pending' AND attempts > 0 ORDER BY updated_at DESC LIMIT 1`,
    [webhookId],
  )) as { status: number | null; error: string | null } | undefined;
  return row !== undefined && row.status === null && !(row.error ?? '').startsWith(borderdFaultPrefix);
}

const FINISH_ATTEMPT = sql`UPDATE deliveries SET state = ?, attempts = ${GREATEST}(attempts, ?), step = ?, next_attempt_at = ?,
    last_status = ?, last_error = ?, delivered_at = COALESCE(?, delivered_at), claimed_by = NULL, lease_until = NULL, updated_at = ?
  WHERE id = ? AND claimed_by = ?`;
const FINISH_EXPECTED_ATTEMPT = sql`${FINISH_ATTEMPT} AND state = ? AND step = ? AND next_attempt_at = ?`;

/** A delivery's state after an attempt. */
export interface DeliveryAfterAttempt {
  state: DeliveryState;
  attempts: number;
  step: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  at: string;
}

/**
 * The outcome of an attempt made under `owner`'s lease, which it gives back; false when the lease
 * was lost meanwhile, or, with `expect`, when the row is no longer in that state, step and due time
 * (an operator disabled, deleted or replayed it while the attempt was in flight; a replay puts a
 * row back at step 0, where a first attempt already was, but always with a new due time).
 */
export async function finishAttempt(
  db: Db,
  id: string,
  owner: string,
  next: DeliveryAfterAttempt,
  expect?: { state: DeliveryState; step: number; nextAttemptAt: number },
): Promise<boolean> {
  const params = [
    next.state,
    next.attempts,
    next.step,
    next.nextAttemptAt,
    next.lastStatus,
    next.lastError,
    next.deliveredAt,
    next.at,
    id,
    owner,
  ];
  if (!expect) return (await db.run(FINISH_ATTEMPT, params)) > 0;
  return (await db.run(FINISH_EXPECTED_ATTEMPT, [...params, expect.state, expect.step, expect.nextAttemptAt])) > 0;
}

/** One row's outcome for finishAttempts: the new values, and the step and due time it must still have (pending). */
export interface FinishedAttempt extends DeliveryAfterAttempt {
  id: string;
  expectStep: number;
  expectNextAttemptAt: number;
}

const FINISH_ATTEMPTS = {
  sqlite: `UPDATE deliveries SET state = r.state, attempts = MAX(deliveries.attempts, r.attempts), step = r.step, next_attempt_at = r.next,
      last_status = r.status, last_error = r.error, delivered_at = COALESCE(r.delivered, deliveries.delivered_at),
      claimed_by = NULL, lease_until = NULL, updated_at = r.at
    FROM (SELECT value ->> 'id' AS id, value ->> 'state' AS state, value ->> 'attempts' AS attempts, value ->> 'step' AS step,
                 value ->> 'nextAttemptAt' AS next, value ->> 'lastStatus' AS status, value ->> 'lastError' AS error,
                 value ->> 'deliveredAt' AS delivered, value ->> 'at' AS at, value ->> 'expectStep' AS expect_step,
                 value ->> 'expectNextAttemptAt' AS expect_next
            FROM json_each(?)) AS r
   WHERE deliveries.id = r.id AND deliveries.claimed_by = ? AND deliveries.state = 'pending'
     AND deliveries.step = r.expect_step AND deliveries.next_attempt_at = r.expect_next
  RETURNING deliveries.id`,
  postgres: `UPDATE deliveries SET state = r.state, attempts = GREATEST(deliveries.attempts, r.attempts), step = r.step,
      next_attempt_at = r."nextAttemptAt", last_status = r."lastStatus", last_error = r."lastError",
      delivered_at = COALESCE(r."deliveredAt", deliveries.delivered_at), claimed_by = NULL, lease_until = NULL, updated_at = r.at
    FROM json_to_recordset(?::json) AS r(id text, state text, attempts integer, step integer, "nextAttemptAt" bigint,
                                         "lastStatus" integer, "lastError" text, "deliveredAt" text, at text,
                                         "expectStep" integer, "expectNextAttemptAt" bigint)
   WHERE deliveries.id = r.id AND deliveries.claimed_by = ? AND deliveries.state = 'pending'
     AND deliveries.step = r."expectStep" AND deliveries.next_attempt_at = r."expectNextAttemptAt"
  RETURNING deliveries.id`,
};

/**
 * finishAttempt with `expect` for many pending rows in one statement: returns the ids it advanced;
 * a row left out changed while its attempt was in flight (see finishAttempt).
 */
export async function finishAttempts(db: Db, owner: string, rows: readonly FinishedAttempt[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  return new Set(await db.column<string>(FINISH_ATTEMPTS, [JSON.stringify(rows), owner]));
}

/**
 * Where a claimed row is to be sent, read just before it goes out: its webhook's current url, and
 * whether the key it was signed with (at claim time) has been retired since; or undefined when it
 * must not go out any more. A claimed row can wait several rounds of sends for a slot, long enough
 * for its webhook to be disabled (by an operator, a 410 or the last failed attempt of another row),
 * deleted, replayed or moved to another url, for its lease to end (or come too close to its end
 * for the send to finish under it) and another process to take it, or for the organization's key
 * to be rotated. Sending it anyway would reach an endpoint that is
 * off, or the old url, or carry a signature its receiver can no longer check.
 */
export async function sendTarget(
  db: Db,
  id: string,
  owner: string,
  step: number,
  keyId: string | null,
  leaseAtLeast: number,
): Promise<{ url: string; keyRetired: boolean; nextAttemptAt: number } | undefined> {
  // leaseAtLeast: the lease must outlast the send, or another process could take the row mid-send.
  const row = (await db.get(
    `SELECT w.url AS url, d.next_attempt_at AS "nextAttemptAt",
            CASE WHEN EXISTS (SELECT 1 FROM webhook_keys k WHERE k.id = ? AND k.retired_at IS NOT NULL) THEN 1 ELSE 0 END AS "keyRetired"
       FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.id = ? AND d.claimed_by = ? AND d.state = 'pending' AND d.step = ? AND d.lease_until >= ?
         AND w.enabled = 1 AND w.deleted_at IS NULL`,
    [keyId, id, owner, step, leaseAtLeast],
  )) as { url: string; keyRetired: number; nextAttemptAt: number } | undefined;
  return row && { url: row.url, keyRetired: row.keyRetired === 1, nextAttemptAt: row.nextAttemptAt };
}

/**
 * Extends the leases `owner` still holds on `ids` to `leaseUntil` (rows another process has taken
 * since are left alone): a live dispatcher keeps its claimed rows however long they wait for a send
 * slot, and a dead one stops renewing, so its rows are taken over when their lease ends.
 */
export async function renewLeases(db: Db, owner: string, ids: readonly string[], leaseUntil: number): Promise<number> {
  if (ids.length === 0) return 0;
  return await db.run(sql`UPDATE deliveries SET lease_until = ? WHERE id IN (${JSON_LIST}) AND claimed_by = ?`, [
    leaseUntil,
    JSON.stringify(ids),
    owner,
  ]);
}

/** Gives one row's lease back without counting an attempt (a claimed row that is not sent after all). */
export async function releaseLease(db: Db, id: string, owner: string): Promise<void> {
  await db.run('UPDATE deliveries SET claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ?', [id, owner]);
}

/** Gives these rows' leases back without counting an attempt: rows claimed and then not sent. */
export async function releaseLeasesOf(db: Db, owner: string, ids: readonly string[]): Promise<number> {
  return await db.run(sql`UPDATE deliveries SET claimed_by = NULL, lease_until = NULL WHERE id IN (${JSON_LIST}) AND claimed_by = ?`, [
    JSON.stringify(ids),
    owner,
  ]);
}

/**
 * Gives leases back without counting an attempt (clean shutdown). A delivered row never holds one
 * (its result cleared it), so naming the other states lets the statement seek them instead of
 * scanning every delivery for its owner under the write lock. Rows skipped or cancelled while
 * claimed are released too: a replay makes them pending again, and a lease left on them would hold
 * them back until it ended.
 */
export async function releaseLeases(db: Db, owner: string): Promise<number> {
  return await db.run(
    "UPDATE deliveries SET claimed_by = NULL, lease_until = NULL WHERE state IN ('pending', 'failed', 'skipped', 'cancelled') AND claimed_by = ?",
    [owner],
  );
}

/** The owners holding leases now, each with how many rows (the deliveries_claimed index: rows in hand only). */
export async function leaseOwners(db: Db): Promise<{ owner: string; rows: number }[]> {
  return await db.all<{ owner: string; rows: number }>(
    'SELECT claimed_by AS owner, COUNT(*) AS "rows" FROM deliveries WHERE claimed_by IS NOT NULL GROUP BY claimed_by',
  );
}

/**
 * Takes back every row a dead process held, at once instead of when its leases end. Its pending rows
 * count one attempt more: the process may have sent one before it died without recording it, so the
 * send that follows says attempt n + 1 (x-delivery-attempt) and a receiver can tell a resend.
 */
export async function takeBackLeases(db: Db, owner: string): Promise<number> {
  const pending = await db.run(
    "UPDATE deliveries SET claimed_by = NULL, lease_until = NULL, attempts = attempts + 1 WHERE claimed_by = ? AND state = 'pending'",
    [owner],
  );
  return pending + (await releaseLeases(db, owner));
}

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
    const byOrg = sql`SELECT * FROM deliveries ${indexedBy('deliveries_org_state')} WHERE org_id = ? AND state = ? ORDER BY id LIMIT ?`;
    const rows: Row[] = [];
    for (const org of orgs) rows.push(...(await db.all<Row>(byOrg, [org, filter.state, filter.limit])));
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
  const text = `SELECT * FROM deliveries ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id LIMIT ?`;
  return ((await db.all(text, [...params, filter.limit])) as Row[]).map(toDelivery);
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
    const byOrg = sql`SELECT * FROM deliveries ${indexedBy('deliveries_org_state')}
      WHERE ${['org_id = ?', 'state = ?', ...where].join(' AND ')} ORDER BY id DESC LIMIT ?`;
    const rows: Row[] = [];
    for (const org of orgs) rows.push(...(await db.all<Row>(byOrg, [org, f.state, ...params, f.limit])));
    return rows
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, f.limit)
      .map(toDelivery);
  }
  if (f.state) add('state = ?', f.state);
  if (f.webhookId) add('webhook_id = ?', f.webhookId);
  const index = f.webhookId ? indexedBy('deliveries_webhook_id') : '';
  const text = sql`SELECT * FROM deliveries ${index} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT ?`;
  return (await db.all<Row>(text, [...params, f.limit])).map(toDelivery);
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

/** Who holds a row's lease and until when; both null when nobody does. */
export interface DeliveryLease {
  claimedBy: string | null;
  leaseUntil: number | null;
}

/** A row's lease; undefined when there is no such row. */
export async function deliveryLease(db: Db, id: string): Promise<DeliveryLease | undefined> {
  return (await db.get('SELECT claimed_by AS "claimedBy", lease_until AS "leaseUntil" FROM deliveries WHERE id = ?', [id])) as
    DeliveryLease | undefined;
}

/** A row under a lease now. */
export interface LeasedDelivery {
  id: string;
  orgId: string;
  webhookId: string;
  state: DeliveryState;
  claimedBy: string;
  leaseUntil: number;
}

/** Every row under a lease now, whoever holds it, in id order. */
export async function leasedDeliveries(db: Db): Promise<LeasedDelivery[]> {
  return (await db.all(`SELECT id, org_id AS "orgId", webhook_id AS "webhookId", state, claimed_by AS "claimedBy", lease_until AS "leaseUntil"
       FROM deliveries WHERE claimed_by IS NOT NULL ORDER BY id`)) as LeasedDelivery[];
}

/** Deletes one delivery that has no attempts recorded (its attempts would keep it). */
export async function deleteDelivery(db: Db, id: string): Promise<void> {
  await db.run('DELETE FROM deliveries WHERE id = ?', [id]);
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

const VIEW_COLUMNS = sql`d.*, e.type AS event_type, CASE WHEN d.claimed_by IS NOT NULL AND d.lease_until >= ? THEN 1 ELSE 0 END AS in_flight,
  ${WAITING_BEHIND}`;
type ViewRow = Row & { event_type: string; in_flight: number; waiting_behind: string | null };
const toView = (r: ViewRow): DeliveryView => ({
  ...toDelivery(r),
  nextAttemptAt: r.state === 'pending' ? new Date(r.next_attempt_at).toISOString() : null,
  eventType: r.event_type,
  inFlight: r.in_flight === 1,
  waitingBehind: r.waiting_behind,
});

/** One delivery of the organization (another organization's id is as good as unknown). */
export async function getDeliveryView(db: Db, orgId: string, id: string, nowMs: number): Promise<DeliveryView | undefined> {
  const row = (await db.get(
    sql`SELECT ${VIEW_COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = ? AND d.org_id = ?`,
    [nowMs, id, orgId],
  )) as ViewRow | undefined;
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

/**
 * Makes a pending row that nobody holds due at `nowMs` (a retry asked for now). False when the row
 * is not pending or is held by a dispatcher: a row in flight is never made due twice. On a webhook
 * ordered by resource the rows behind it that its failure held back (holdLineBehind) are due again
 * too, so they follow it at once.
 */
export async function makeDueNow(db: Db, id: string, nowMs: number, at: string): Promise<boolean> {
  const made =
    (await db.run(
      `UPDATE deliveries SET next_attempt_at = ?, updated_at = ?
        WHERE id = ? AND state = 'pending' AND (claimed_by IS NULL OR lease_until < ?)`,
      [nowMs, at, id, nowMs],
    )) > 0;
  if (made) await releaseLineBehind(db, id, nowMs);
  return made;
}

/** The pending, unleased rows of a resource line behind the row `?` (lineOf), on a webhook ordered by resource. */
const BEHIND_HEAD = sql`SELECT b.id FROM deliveries h JOIN deliveries b ON ${sameLine('resource', 'b', 'h', '>')}
   WHERE h.id = ? AND h.in_line = 1 AND b.claimed_by IS NULL
     AND (SELECT w.ordering FROM webhooks w WHERE w.id = h.webhook_id) = 'resource'`;

/**
 * After a head's failed attempt on a webhook ordered by resource: the rows of its line behind it
 * take its next due time when theirs is earlier. They cannot go before it anyway; until then the
 * due check and the claim pass them by instead of reading each of them at every pass. Rows written
 * behind it later are due at once, and held back at its next failure.
 */
export async function holdLineBehind(db: Db, headId: string): Promise<number> {
  return await db.run(
    sql`UPDATE deliveries SET next_attempt_at = (SELECT n.next_attempt_at FROM deliveries n WHERE n.id = ?)
      WHERE id IN (${BEHIND_HEAD} AND h.state = 'pending' AND b.next_attempt_at < h.next_attempt_at)`,
    [headId, headId],
  );
}

/** Makes the rows that holdLineBehind held back behind the row `id` due at `nowMs`: it was released or made due now. */
async function releaseLineBehind(db: Db, id: string, nowMs: number): Promise<void> {
  await db.run(sql`UPDATE deliveries SET next_attempt_at = ? WHERE id IN (${BEHIND_HEAD} AND b.next_attempt_at > ?)`, [nowMs, id, nowMs]);
}

/** When a webhook's next attempt is due: its earliest pending row's due time, or undefined when nothing is pending. */
export async function nextAttemptOf(db: Db, webhookId: string): Promise<number | undefined> {
  const v = await db.value(
    sql`SELECT next_attempt_at FROM deliveries ${indexedBy('deliveries_webhook_due')} WHERE webhook_id = ? AND state = 'pending' ORDER BY next_attempt_at LIMIT 1`,
    [webhookId],
  );
  return v === undefined || v === null ? undefined : Number(v);
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

/**
 * Takes one pending delivery of the organization out of its line without sending it: `skipped`
 * (kept, a replay sends it again) or `cancelled`. On an ordered webhook this releases the ones
 * behind it. False when the row is not pending, or a dispatcher holds it (its attempt may be on the
 * wire: what is behind it must wait for that result).
 */
export async function releasePending(
  db: Db,
  orgId: string,
  id: string,
  state: 'skipped' | 'cancelled',
  nowMs: number,
  at: string,
): Promise<boolean> {
  const released =
    (await db.run(
      `UPDATE deliveries SET state = ?, updated_at = ?
        WHERE id = ? AND org_id = ? AND state = 'pending' AND (claimed_by IS NULL OR lease_until < ?)`,
      [state, at, id, orgId, nowMs],
    )) > 0;
  if (released) await releaseLineBehind(db, id, nowMs);
  return released;
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
