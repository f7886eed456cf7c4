/**
 * The `refund_plans` table: one refund plan per failed transaction, and the facts of the
 * transaction a plan is made from.
 *
 * @module store/refund-plans
 */
import type { Db } from '../db/database.js';
import type { DestinationSource, PlannedDestination, RefundPlanDecision, RefundPlanKind, RefundPlanState } from '../domain/refund-plan.js';

export interface RefundPlan extends RefundPlanDecision {
  id: string;
  orgId: string;
  transactionId: string;
  createdAt: string;
  updatedAt: string;
  dispatchedAt: string | null;
  /** The version of the default the destination came from (destinationFrom 'default'), else null. */
  defaultVersion: number | null;
}

interface Row {
  id: string;
  org_id: string;
  transaction_id: string;
  state: RefundPlanState;
  kind: RefundPlanKind;
  destination_from: DestinationSource;
  destination: string | null;
  auto_refund: number;
  reason: string;
  created_at: string;
  updated_at: string;
  dispatched_at: string | null;
  default_version: number | null;
}

const toPlan = (r: Row): RefundPlan => ({
  id: r.id,
  orgId: r.org_id,
  transactionId: r.transaction_id,
  state: r.state,
  kind: r.kind,
  destinationFrom: r.destination_from,
  destination: r.destination ? (JSON.parse(r.destination) as PlannedDestination) : null,
  autoRefund: r.auto_refund === 1,
  reason: r.reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  dispatchedAt: r.dispatched_at,
  defaultVersion: r.default_version,
});

/** The columns of a plan's decision, which its insert and a re-plan write alike, and their values in that order. */
const DECISION_COLUMNS = ['state', 'kind', 'destination_from', 'destination', 'auto_refund', 'reason'] as const;
const decisionValues = (d: RefundPlanDecision): unknown[] => [
  d.state,
  d.kind,
  d.destinationFrom,
  d.destination ? JSON.stringify(d.destination) : null,
  d.autoRefund ? 1 : 0,
  d.reason,
];

export async function insertRefundPlan(db: Db, p: RefundPlan): Promise<void> {
  await db.run(
    `INSERT INTO refund_plans (id, org_id, transaction_id, ${DECISION_COLUMNS.join(', ')}, created_at, updated_at, dispatched_at, default_version)
     VALUES (?, ?, ?, ${DECISION_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?, ?)`,
    [p.id, p.orgId, p.transactionId, ...decisionValues(p), p.createdAt, p.updatedAt, p.dispatchedAt, p.defaultVersion],
  );
}

export async function getRefundPlan(db: Db, id: string): Promise<RefundPlan | undefined> {
  const r = (await db.get('SELECT * FROM refund_plans WHERE id = ?', [id])) as Row | undefined;
  return r && toPlan(r);
}

export async function getRefundPlanForTransaction(db: Db, transactionId: string): Promise<RefundPlan | undefined> {
  const r = (await db.get('SELECT * FROM refund_plans WHERE transaction_id = ?', [transactionId])) as Row | undefined;
  return r && toPlan(r);
}

export async function listRefundPlans(
  db: Db,
  f: { orgId?: string | undefined; state?: RefundPlanState | undefined },
): Promise<RefundPlan[]> {
  const where: string[] = [];
  const params: string[] = [];
  if (f.orgId) {
    where.push('org_id = ?');
    params.push(f.orgId);
  }
  if (f.state) {
    where.push('state = ?');
    params.push(f.state);
  }
  const sql = `SELECT * FROM refund_plans ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id`;
  return ((await db.all(sql, params)) as Row[]).map(toPlan);
}

export async function setRefundPlanState(
  db: Db,
  id: string,
  state: RefundPlanState,
  reason: string,
  at: string,
  dispatchedAt: string | null,
): Promise<void> {
  await db.run('UPDATE refund_plans SET state = ?, reason = ?, updated_at = ?, dispatched_at = COALESCE(?, dispatched_at) WHERE id = ?', [
    state,
    reason,
    at,
    dispatchedAt,
    id,
  ]);
}

/** Replaces a plan's decision (a Paused plan re-planned against a new default). */
export async function replaceRefundPlanDecision(
  db: Db,
  id: string,
  d: RefundPlanDecision,
  defaultVersion: number | null,
  at: string,
): Promise<void> {
  await db.run(
    `UPDATE refund_plans SET ${DECISION_COLUMNS.map((c) => `${c} = ?`).join(', ')}, default_version = ?, updated_at = ?,
       dispatched_at = CASE WHEN ? = 'Dispatched' THEN ? ELSE dispatched_at END
     WHERE id = ?`,
    [...decisionValues(d), defaultVersion, at, d.state, at, id],
  );
}

/** What the plan needs from the failed transaction (scoped to its organization). */
export interface TransactionRefundFacts {
  type: string;
  network: string | null;
  /** The transaction's `source` JSON (a failed fiat payout's crypto return reads `source.network`). */
  source: string | null;
  refundDestination: string | null;
}

export async function getTransactionRefundFacts(db: Db, orgId: string, transactionId: string): Promise<TransactionRefundFacts | undefined> {
  return (await db.get(
    'SELECT type, network, source, refund_destination AS "refundDestination" FROM transactions WHERE org_id = ? AND id = ?',
    [orgId, transactionId],
  )) as TransactionRefundFacts | undefined;
}
