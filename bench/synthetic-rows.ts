/**
 * Synthetic rows for benchmarks and tests that need a long history or a large backlog in a moment:
 * `count` events of one organization, ids `<prefix>1…`, and a delivery of each to one webhook, each
 * kind in one statement that counts its own rows, on either engine.
 *
 * @module bench/synthetic-rows
 */
import type { Db } from '../src/db/database.js';

/** The numbers 1…count as `n(g)`: a recursive CTE both engines run (PostgreSQL's generate_series is its own). */
const NUMBERS = `WITH RECURSIVE n(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM n WHERE g < CAST(? AS INTEGER))`;

export interface SyntheticEvents {
  /** Each id is this and its number. */
  prefix: string;
  orgId: string;
  count: number;
  /** created_at of every row (ISO). */
  at: string;
  type?: string;
}

/** `count` events with an empty body, ids `<prefix>1…<prefix><count>`. */
export async function addSyntheticEvents(db: Db, e: SyntheticEvents): Promise<void> {
  await db.run(`${NUMBERS} INSERT INTO events (id, org_id, type, body, created_at) SELECT ? || g, ?, ?, '{}', ? FROM n`, [
    e.count,
    e.prefix,
    e.orgId,
    e.type ?? 'Transaction_Updated',
    e.at,
  ]);
}

export interface SyntheticDeliveries {
  /** Events `evt_<prefix>_1…` and their deliveries `dlv_<prefix>_1…`. */
  prefix: string;
  orgId: string;
  webhookId: string;
  count: number;
  /** created_at and updated_at of every row, and delivered_at of a delivered one (ISO). */
  at: string;
  /** A delivered row has made one attempt; a pending one none. */
  state: 'pending' | 'delivered';
  /** Pending rows leased to this owner until this time (ms); else unleased. */
  lease?: { owner: string; until: number };
}

/** `count` events and a delivery of each to `webhookId`, delivery n due at n (ms). */
export async function addSyntheticDeliveries(db: Db, d: SyntheticDeliveries): Promise<void> {
  await addSyntheticEvents(db, { prefix: `evt_${d.prefix}_`, orgId: d.orgId, count: d.count, at: d.at });
  const delivered = d.state === 'delivered';
  const lease = delivered ? undefined : d.lease;
  await db.run(
    `${NUMBERS} INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, attempts, next_attempt_at, claimed_by, lease_until, delivered_at, created_at, updated_at)
       SELECT ? || g, ? || g, ?, ?, ?, CAST(? AS INTEGER), g, ?, CAST(? AS BIGINT), ?, ?, ? FROM n`,
    [
      d.count,
      `dlv_${d.prefix}_`,
      `evt_${d.prefix}_`,
      d.webhookId,
      d.orgId,
      d.state,
      delivered ? 1 : 0,
      lease?.owner ?? null,
      lease?.until ?? null,
      delivered ? d.at : null,
      d.at,
      d.at,
    ],
  );
}
