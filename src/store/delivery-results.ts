/**
 * What an attempt leaves on its delivery: the row's new state, step and due time (one row, or a
 * batch in one statement), and on a webhook ordered by resource the rows of its line held behind a
 * failed head and let go when it is released or made due.
 *
 * @module store/delivery-results
 */
import { sql, type Db } from '../db/database.js';
import { GREATEST, indexedBy, jsonRecords, NOT_INDEXED_ON_BOTH, type JsonColumn } from '../db/dialect.js';
import { sameLine, type DeliveryState } from './deliveries.js';

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

/** The keys of a FinishedAttempt, as finishAttempts reads them from its one parameter. */
const FINISHED_ATTEMPT_COLUMNS = [
  ['id', 'text'],
  ['state', 'text'],
  ['attempts', 'integer'],
  ['step', 'integer'],
  ['nextAttemptAt', 'bigint'],
  ['lastStatus', 'integer'],
  ['lastError', 'text'],
  ['deliveredAt', 'text'],
  ['at', 'text'],
  ['expectStep', 'integer'],
  ['expectNextAttemptAt', 'bigint'],
] as const satisfies readonly (readonly [keyof FinishedAttempt, JsonColumn[1]])[];

/**
 * The batch leads: each of its rows is found by its id. The state's index is kept out of both
 * planners' reach (NOT_INDEXED_ON_BOTH): SQLite would start from the pending rows and read the
 * whole batch again for each (backlog × batch steps), PostgreSQL would walk every pending row of
 * the queue and hash them against the batch.
 */
const FINISH_ATTEMPTS = sql`UPDATE deliveries SET state = r.state, attempts = ${GREATEST}(deliveries.attempts, r.attempts), step = r.step,
      next_attempt_at = r."nextAttemptAt", last_status = r."lastStatus", last_error = r."lastError",
      delivered_at = COALESCE(r."deliveredAt", deliveries.delivered_at), claimed_by = NULL, lease_until = NULL, updated_at = r.at
    FROM ${jsonRecords('r', FINISHED_ATTEMPT_COLUMNS)}
   WHERE deliveries.id = r.id AND deliveries.claimed_by = ? AND ${NOT_INDEXED_ON_BOTH}deliveries.state = 'pending'
     AND deliveries.step = r."expectStep" AND deliveries.next_attempt_at = r."expectNextAttemptAt"
  RETURNING deliveries.id`;

/**
 * finishAttempt with `expect` for many pending rows in one statement: returns the ids it advanced;
 * a row left out changed while its attempt was in flight (see finishAttempt).
 */
export async function finishAttempts(db: Db, owner: string, rows: readonly FinishedAttempt[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  return new Set(await db.column<string>(FINISH_ATTEMPTS, [JSON.stringify(rows), owner]));
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
