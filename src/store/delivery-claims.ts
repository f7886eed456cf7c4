/**
 * Which deliveries go out next, and who holds them: the webhooks with something due, the claim that
 * leases a webhook's due rows (in its line's order when it asks for one), and the leases themselves:
 * renewed while a row waits for a send slot, given back, taken over from a dead process.
 *
 * @module store/delivery-claims
 */
import { sql, type Db, type Sql } from '../db/database.js';
import {
  belowWatermark,
  plannedPerRun,
  FOR_UPDATE_SKIP_LOCKED,
  idsFirst,
  indexedBy,
  JSON_LIST,
  NOT_INDEXED,
  NOT_INDEXED_ON_BOTH,
  updatePicked,
} from '../db/dialect.js';
import { lineOf, type DeliveryState } from './deliveries.js';
import type { WebhookOrdering } from './webhooks.js';

/** An enabled, live webhook with at least one due, unleased pending row. */
export interface DueWebhook {
  id: string;
  orgId: string;
  url: string;
  /** The order its deliveries go out in (which of its due rows a claim may take); absent: none. */
  ordering?: WebhookOrdering;
}

const DUE_WEBHOOKS = sql`SELECT w.id, w.org_id AS "orgId", w.url, w.ordering FROM webhooks w
  WHERE w.enabled = 1 AND w.deleted_at IS NULL AND w.id NOT IN (${JSON_LIST})
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
 * (a probe passes over at most the rows leased right now, which the concurrency caps bound); the
 * webhooks `except` (known due already) are not probed. A
 * webhook in strict order is due when the head of its line is, or a test event's delivery (which
 * is in no line): a line held by a head waiting for its retry is not reported due at every pass.
 */
export async function dueWebhooks(db: Db, nowMs: number, except: readonly string[] = []): Promise<DueWebhook[]> {
  return await db.all<DueWebhook>(DUE_WEBHOOKS, [JSON.stringify(except), nowMs, nowMs, nowMs, nowMs, nowMs, nowMs]);
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
 * Leases up to `limit` of one webhook's oldest due rows in a single conditional UPDATE (an index
 * range scan of what it returns): a row leased by anyone else is never taken, so two processes on
 * one database never send the same attempt at once. On PostgreSQL the rows are locked as they are
 * picked, and rows another node is claiming right now are passed over (FOR_UPDATE_SKIP_LOCKED)
 * instead of waited for; the rows are picked in a CTE, which runs once: as `WHERE id IN (subquery …
 * LIMIT)` its planner may join the subquery instead and take more rows than the limit. An ordered
 * claim also asks of a candidate that its event's transaction is below the watermark: an event of a
 * transaction still running, and so its delivery row, is not visible yet, and a later event of its
 * line committed meanwhile must not pass it. Run it inside the caller's write transaction.
 * The outer UPDATE's state check is kept out of both engines' plans (NOT_INDEXED_ON_BOTH), so each
 * picked row is found by its primary key: without it SQLite picks the (state, next_attempt_at)
 * index and PostgreSQL the webhook's due rows, each walking every pending row, so each claim would
 * cost the backlog. In strict order the candidates are the head and the test events' deliveries, read
 * first (idsFirst), each by its id (`+` keeps the webhook's due rows index out), or SQLite would
 * walk the due rows. Given the `url` the caller will send to, the claim takes rows only while the
 * webhook is enabled, live, at that url and in that order (WEBHOOK_AS_KNOWN). The limit is an
 * expression, not a bare `?`: SQLite plans with a bare bound LIMIT's value and so prepares the
 * statement again each time it is bound anew, which is every claim.
 */
const claimDueSql = (ordering: WebhookOrdering, checked: boolean, after: boolean) => {
  const strict = ordering === 'webhook';
  const byId = strict ? NOT_INDEXED : '';
  const candidates = strict ? idsFirst(HEAD_OR_UNLINED, 'deliveries', 'c') : 'deliveries c WHERE';
  return sql`WITH picked AS (
    SELECT c.id FROM ${candidates} ${byId}c.webhook_id = ? AND ${byId}c.state = 'pending' AND c.next_attempt_at <= ?
       AND (c.lease_until IS NULL OR c.lease_until < ?) ${after ? AFTER_CURSOR : ''} ${checked ? WEBHOOK_AS_KNOWN : ''}
       AND c.id NOT IN (${JSON_LIST})
       ${ordering === 'resource' ? RESOURCE_ELIGIBLE : ''} ${ordering === 'none' ? '' : belowWatermark('c.event_tx')}
     ORDER BY c.next_attempt_at, c.id LIMIT CAST(? AS INTEGER) ${FOR_UPDATE_SKIP_LOCKED})
  UPDATE deliveries SET claimed_by = ?, lease_until = ? ${updatePicked('deliveries', 'picked')}
    AND ${NOT_INDEXED_ON_BOTH}state = 'pending' AND (lease_until IS NULL OR lease_until < ?)
  RETURNING deliveries.id, event_id AS "eventId", attempts, step, next_attempt_at AS "nextAttemptAt"`;
};

/**
 * The webhook (id, ordering, url: the parameters) is enabled and live, in that order, at that url:
 * one primary-key probe, made once per claim (it names no candidate). A claim made without a
 * listing of the due webhooks in the same pass reads in it what that listing would have.
 */
const WEBHOOK_AS_KNOWN = `AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = ? AND w.enabled = 1 AND w.deleted_at IS NULL
                                             AND w.ordering = ? AND w.url = ?)`;

/**
 * Only the rows after a cursor, in the claim's own order (next_attempt_at, id): the walk of
 * deliveries_webhook_due starts there instead of at the oldest due entry. The entries before it are
 * those of rows this node claimed already, many of them delivered since; on PostgreSQL such a
 * row's old `pending` entry stays until vacuum, and a scan can mark it dead only once no snapshot
 * of the database could still see the old version, so while any is older every claim from the
 * start reads them all again.
 */
const AFTER_CURSOR = 'AND (c.next_attempt_at, c.id) > (?, ?)';

/**
 * The claim's statements, by ordering, whether it checks the webhook (WEBHOOK_AS_KNOWN) and whether
 * it starts after a cursor. One that starts after a cursor is planned with its values at every run
 * (plannedPerRun): without them, PostgreSQL reads the cursor as a narrow range of deliveries_due
 * (state, next_attempt_at), and the generic plan a connection may keep after five runs walks every
 * pending row from the cursor on, at every refill. Planned with them, the walk is of the webhook's
 * own rows in deliveries_webhook_due; a claim from the oldest due row plans the same either way.
 */
const CLAIM_DUE = new Map<string, Sql>();
const claimStatement = (ordering: WebhookOrdering, checked: boolean, after: boolean): Sql => {
  const key = `${ordering}:${checked}:${after}`;
  let statement = CLAIM_DUE.get(key);
  if (!statement) {
    const text = claimDueSql(ordering, checked, after);
    CLAIM_DUE.set(key, (statement = after ? plannedPerRun(text) : text));
  }
  return statement;
};

/** Where a claim may start: after the last row, in the claim's order (next_attempt_at, id), of the claim before it. */
export interface ClaimCursor {
  nextAttemptAt: number;
  id: string;
}

/**
 * Claims up to `limit` of a webhook's due rows (claimDueSql), sorted in the claim's order. With
 * `after`, the walk of the webhook's due rows starts there (AFTER_CURSOR); when that comes back
 * short, the rest is claimed from the oldest due row, so a row it passed over (given back, taken
 * over from a dead process, made due again) waits for no other claim: a claim short of its limit
 * has read everything due. A strict-order claim reads its few candidates by id and takes no cursor.
 */
export async function claimDue(
  db: Db,
  webhookId: string,
  owner: string,
  nowMs: number,
  leaseUntil: number,
  limit: number,
  held: readonly string[] = [],
  ordering: WebhookOrdering = 'none',
  url?: string,
  after?: ClaimCursor,
): Promise<ClaimedDelivery[]> {
  // `held`: rows the caller still has in hand (queued, in flight, result not written). Their lease
  // can only have ended by a jump of the wall clock; taking them again would send them twice at once.
  const heldList = held.length ? JSON.stringify(held) : '[]';
  // The head's parameters come first: they select the candidates.
  const head = ordering === 'webhook' ? Array.from({ length: HEAD_OR_UNLINED_PARAMS }, () => webhookId) : [];
  const checked = url !== undefined;
  const claim = async (n: number, cursor?: ClaimCursor) =>
    await db.all<ClaimedDelivery>(claimStatement(ordering, checked, cursor !== undefined), [
      ...head,
      webhookId,
      nowMs,
      nowMs,
      ...(cursor ? [cursor.nextAttemptAt, cursor.id] : []),
      ...(checked ? [webhookId, ordering, url] : []),
      heldList,
      n,
      owner,
      leaseUntil,
      nowMs,
    ]);
  const start = ordering === 'webhook' ? undefined : after;
  const rows = await claim(limit, start);
  // The rows just claimed are leased now: the walk from the start passes them by.
  if (start && rows.length < limit) rows.push(...(await claim(limit - rows.length)));
  return rows.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
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
 * A renewal waits for no row: on PostgreSQL a row another transaction holds is passed over
 * (FOR_UPDATE_SKIP_LOCKED). A renewal that waited would lock its rows in the list's order while a
 * result batch of the same process locks the rows it records in another order, some of them still
 * in the renewal's list (held until their result commits): each would wait on the other, a
 * deadlock PostgreSQL breaks only after deadlock_timeout by aborting one of them, while both nodes'
 * sends behind them wait. A row held elsewhere is being recorded, given back, taken over or changed
 * by an operator, and the lease it has left covers the next renewal, a third of a lease later.
 */
const RENEW_LEASES = sql`UPDATE deliveries SET lease_until = ?
   WHERE id IN (SELECT id FROM deliveries WHERE id IN (${JSON_LIST}) AND claimed_by = ? ${FOR_UPDATE_SKIP_LOCKED})`;

/**
 * Extends the leases `owner` still holds on `ids` to `leaseUntil` (rows another process has taken
 * since are left alone, and rows another transaction holds right now: RENEW_LEASES): a live
 * dispatcher keeps its claimed rows however long they wait for a send slot, and a dead one stops
 * renewing, so its rows are taken over when their lease ends.
 */
export async function renewLeases(db: Db, owner: string, ids: readonly string[], leaseUntil: number): Promise<number> {
  if (ids.length === 0) return 0;
  return await db.run(RENEW_LEASES, [leaseUntil, JSON.stringify(ids), owner]);
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
 * The statement that gives back the leases `owner` holds on pending rows (`extra`: what else it
 * sets). No index covers claimed_by, so that a claim and a renewal write no index entry (on
 * PostgreSQL they are HOT updates): the rows are found through the pending rows' part of
 * deliveries_due, one pass over the backlog, never over the delivered history.
 */
const releasePending = (extra: string) =>
  sql`UPDATE deliveries ${indexedBy('deliveries_due')} SET claimed_by = NULL, lease_until = NULL${extra}
   WHERE state = 'pending' AND claimed_by = ?`;
const RELEASE_PENDING = releasePending('');
const TAKE_BACK_PENDING = releasePending(', attempts = attempts + 1');

/**
 * Gives back the leases `owner` holds on pending rows, without counting an attempt (clean
 * shutdown). A delivered or failed row never holds one (its result cleared it). A row skipped or
 * cancelled while claimed keeps its lease until it ends: finding it would walk every skipped or
 * cancelled row of the history. The dispatcher gives it back when it drops the row's job
 * (releaseLease), so only a stop in that moment leaves one, which a replay then waits for.
 */
export async function releaseLeases(db: Db, owner: string): Promise<number> {
  return await db.run(RELEASE_PENDING, [owner]);
}

/**
 * Takes back the pending rows a dead process held, at once instead of when its leases end. Each
 * counts one attempt more: the process may have sent one before it died without recording it, so
 * the send that follows says attempt n + 1 (x-delivery-attempt) and a receiver can tell a resend.
 * One pass over the pending rows (releasePending), made once per dead process.
 */
export async function takeBackLeases(db: Db, owner: string): Promise<number> {
  return await db.run(TAKE_BACK_PENDING, [owner]);
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

/**
 * Every row under a lease now, whoever holds it, in id order: a read of the whole table (no index
 * covers claimed_by), for tests, never for the dispatcher.
 */
export async function leasedDeliveries(db: Db): Promise<LeasedDelivery[]> {
  return (await db.all(`SELECT id, org_id AS "orgId", webhook_id AS "webhookId", state, claimed_by AS "claimedBy", lease_until AS "leaseUntil"
       FROM deliveries WHERE claimed_by IS NOT NULL ORDER BY id`)) as LeasedDelivery[];
}

/** When a webhook's next attempt is due: its earliest pending row's due time, or undefined when nothing is pending. */
export async function nextAttemptOf(db: Db, webhookId: string): Promise<number | undefined> {
  const v = await db.value(
    sql`SELECT next_attempt_at FROM deliveries ${indexedBy('deliveries_webhook_due')} WHERE webhook_id = ? AND state = 'pending' ORDER BY next_attempt_at LIMIT 1`,
    [webhookId],
  );
  return v === undefined || v === null ? undefined : Number(v);
}
