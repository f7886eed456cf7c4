/**
 * Orchestrated transactions (rows of `transactions` with origin `orchestrated`): their insert,
 * lookup and status moves.
 *
 * @module store/transactions
 */
import type { Db } from '../db/database.js';
import type { TransactionStatus, TransactionType } from '../verify/events.js';

/** An orchestrated transaction as the operator API shows it. JSON columns are parsed objects here. */
export interface Transaction {
  id: string;
  orgId: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: string | null;
  currency: string | null;
  network: string | null;
  source: Record<string, unknown> | null;
  destination: Record<string, unknown> | null;
  refundDestination: Record<string, unknown> | null;
  failureReason: string | null;
  identityId: string | null;
  accountId: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  org_id: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: string | null;
  currency: string | null;
  network: string | null;
  source: string | null;
  destination: string | null;
  refund_destination: string | null;
  failure_reason: string | null;
  identity_id: string | null;
  account_id: string | null;
  created_at: string;
  updated_at: string;
}

const json = (v: string | null): Record<string, unknown> | null => (v === null ? null : (JSON.parse(v) as Record<string, unknown>));
const text = (v: Record<string, unknown> | null): string | null => (v === null ? null : JSON.stringify(v));

const toTransaction = (r: Row): Transaction => ({
  id: r.id,
  orgId: r.org_id,
  type: r.type,
  status: r.status,
  amount: r.amount,
  currency: r.currency,
  network: r.network,
  source: json(r.source),
  destination: json(r.destination),
  refundDestination: json(r.refund_destination),
  failureReason: r.failure_reason,
  identityId: r.identity_id,
  accountId: r.account_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** What every row of `transactions` holds, whatever its origin. */
export interface TransactionBase {
  id: string;
  orgId: string;
  type: string;
  status: string;
  amount: string | null;
  currency: string | null;
  network: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Inserts one row of `transactions`: the columns every origin has, from `t`, and the origin's own (`own`, by column). */
export async function insertTransactionRow(
  db: Db,
  origin: 'orchestrated' | 'imported',
  t: TransactionBase,
  own: Record<string, unknown>,
): Promise<void> {
  const row = {
    id: t.id,
    org_id: t.orgId,
    origin,
    type: t.type,
    status: t.status,
    amount: t.amount,
    currency: t.currency,
    network: t.network,
  };
  const columns = { ...row, ...own, created_at: t.createdAt, updated_at: t.updatedAt };
  const names = Object.keys(columns);
  await db.run(`INSERT INTO transactions (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`, Object.values(columns));
}

export async function insertOrchestratedTransaction(db: Db, t: Transaction): Promise<void> {
  await insertTransactionRow(db, 'orchestrated', t, {
    source: text(t.source),
    destination: text(t.destination),
    refund_destination: text(t.refundDestination),
    failure_reason: t.failureReason,
    identity_id: t.identityId,
    account_id: t.accountId,
  });
}

/** An orchestrated transaction by id; with orgId, only that organization's. */
export async function getOrchestratedTransaction(db: Db, id: string, orgId?: string): Promise<Transaction | undefined> {
  const row = (
    orgId
      ? await db.get("SELECT * FROM transactions WHERE id = ? AND org_id = ? AND origin = 'orchestrated'", [id, orgId])
      : await db.get("SELECT * FROM transactions WHERE id = ? AND origin = 'orchestrated'", [id])
  ) as Row | undefined;
  return row && toTransaction(row);
}

/** How many transactions the organization holds, of one origin or of both. */
export async function countTransactions(db: Db, orgId: string, origin?: 'orchestrated' | 'imported'): Promise<number> {
  return (await db.value('SELECT COUNT(*) FROM transactions WHERE org_id = ? AND origin = COALESCE(?, origin)', [
    orgId,
    origin ?? null,
  ])) as number;
}

/** Moves the status only if it is still `from` (a concurrent change loses instead of overwriting). */
export async function updateTransactionStatus(
  db: Db,
  id: string,
  from: TransactionStatus,
  to: TransactionStatus,
  failureReason: string | null,
  at: string,
): Promise<boolean> {
  return (
    (await db.run('UPDATE transactions SET status = ?, failure_reason = ?, updated_at = ? WHERE id = ? AND status = ?', [
      to,
      failureReason,
      at,
      id,
      from,
    ])) > 0
  );
}
