/**
 * Orchestrated transactions: creation and status changes along the state machine, each with its
 * event and the transaction hooks in one SQLite transaction.
 *
 * @module services/transactions
 */
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { NETWORK_IDS } from '../domain/crypto-address.js';
import { conflict, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { canMove, INITIAL_STATUS, TRANSITIONS } from '../domain/transaction-status.js';
import { enqueueEvent, inOutboxTransaction } from '../delivery/enqueue.js';
import { getOrganization } from '../store/organizations.js';
import {
  getOrchestratedTransaction,
  insertOrchestratedTransaction,
  updateTransactionStatus,
  type Transaction,
} from '../store/transactions.js';
import { TRANSACTION_TYPES, type TransactionEventData, type TransactionStatus, type TransactionType } from '../verify/events.js';
import { transactionRefundDestinationProblems } from '../domain/refund-destination.js';
import { transactionDestinationSchema } from '../domain/refund-destination.js';

/** Decimal string: digits, optional fraction, no exponent. Stored and sent exactly as given (no float ever touches it). */
export const decimalString = z.string().regex(/^\d{1,20}(\.\d{1,18})?$/, 'must be a non-negative decimal string like "125.50"');
const jsonObject = z.record(z.string(), z.unknown());

/** The create input as the admin API and the CLI accept it (one schema for both). */
export const createTransactionBody = z
  .strictObject({
    orgId: z.string().min(1),
    type: z.enum(TRANSACTION_TYPES),
    amount: decimalString.optional(),
    currency: z.string().min(2).max(20).optional(),
    // One of the spec's NetworkIds, as an import row's: the refund plan picks the default's address by it,
    // so a misspelt network ("Solana") would make a crypto withdrawal look like a fiat payout.
    network: z.enum(NETWORK_IDS).optional(),
    source: jsonObject.optional(),
    destination: jsonObject.optional(),
    refundDestination: jsonObject.optional(),
    identityId: z.string().min(1).max(200).optional(),
    accountId: z.string().min(1).max(200).optional(),
  })
  .superRefine((b, zctx) => {
    // The refund destination is checked when it is given (a 400 naming the field), with the rules of
    // the default's addresses; the refund-plan hook would otherwise find out only when the transaction fails.
    if (b.refundDestination === undefined) return;
    const r = transactionDestinationSchema.safeParse(b.refundDestination);
    if (!r.success) {
      for (const issue of r.error.issues)
        zctx.addIssue({
          code: 'custom',
          path: ['refundDestination', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
          message: issue.message,
        });
      return;
    }
    for (const e of transactionRefundDestinationProblems(r.data, b.network))
      zctx.addIssue({ code: 'custom', path: ['refundDestination', e.path], message: e.message });
  });

export interface CreateTransactionInput {
  orgId: string;
  type: TransactionType;
  amount?: string | null | undefined;
  currency?: string | null | undefined;
  network?: string | null | undefined;
  source?: Record<string, unknown> | null | undefined;
  destination?: Record<string, unknown> | null | undefined;
  refundDestination?: Record<string, unknown> | null | undefined;
  identityId?: string | null | undefined;
  accountId?: string | null | undefined;
}

export function transactionEventData(t: Transaction, previousStatus: TransactionStatus | null): TransactionEventData {
  return {
    id: t.id,
    type: t.type,
    status: t.status,
    previousStatus,
    amount: t.amount,
    currency: t.currency,
    network: t.network,
    source: t.source,
    destination: t.destination,
    failureReason: t.failureReason,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

async function runHooks(ctx: AppContext, t: Transaction, from: TransactionStatus | null, nowMs: number): Promise<void> {
  for (const hook of ctx.transactionHooks) await hook({ ctx, orgId: t.orgId, transactionId: t.id, from, to: t.status, nowMs });
}

/** Creates an orchestrated transaction (status Submitted) and its Transaction_Created event in one SQLite transaction. */
export async function createTransaction(ctx: AppContext, input: CreateTransactionInput): Promise<Transaction> {
  if (!(await getOrganization(ctx.db, input.orgId))) throw notFound(`organization ${input.orgId}`);
  return await inOutboxTransaction(ctx, async (ctx) => {
    const now = ctx.clock.now();
    const at = isoAt(now);
    const t: Transaction = {
      id: newId('txn', now),
      orgId: input.orgId,
      type: input.type,
      status: INITIAL_STATUS,
      amount: input.amount ?? null,
      currency: input.currency ?? null,
      network: input.network ?? null,
      source: input.source ?? null,
      destination: input.destination ?? null,
      refundDestination: input.refundDestination ?? null,
      failureReason: null,
      identityId: input.identityId ?? null,
      accountId: input.accountId ?? null,
      createdAt: at,
      updatedAt: at,
    };
    await insertOrchestratedTransaction(ctx.db, t);
    await runHooks(ctx, t, null, now);
    await enqueueEvent(ctx, t.orgId, 'Transaction_Created', transactionEventData(t, null));
    return t;
  });
}

export async function getTransaction(ctx: AppContext, id: string, orgId?: string): Promise<Transaction> {
  const t = await getOrchestratedTransaction(ctx.db, id, orgId);
  if (!t) throw notFound(`transaction ${id}`);
  return t;
}

/**
 * Moves the status along the state machine (409 for an illegal move), runs every transaction hook
 * and writes Transaction_Updated, all in one SQLite transaction.
 */
export async function changeTransactionStatus(
  ctx: AppContext,
  id: string,
  to: TransactionStatus,
  failureReason?: string | null,
): Promise<Transaction> {
  return await inOutboxTransaction(ctx, async (ctx) => {
    const current = await getTransaction(ctx, id);
    if (!canMove(current.status, to)) {
      const allowed = TRANSITIONS[current.status];
      throw conflict(
        'illegal_status_change',
        `transaction ${id} cannot move from ${current.status} to ${to}; allowed: ${allowed.length ? allowed.join(', ') : 'none (final status)'}`,
      );
    }
    const now = ctx.clock.now();
    const at = isoAt(now);
    const reason = to === 'Failed' ? (failureReason ?? current.failureReason) : (failureReason ?? null);
    if (!(await updateTransactionStatus(ctx.db, id, current.status, to, reason, at)))
      throw conflict('concurrent_change', `transaction ${id} changed meanwhile; retry`);
    const t: Transaction = { ...current, status: to, failureReason: reason, updatedAt: at };
    await runHooks(ctx, t, current.status, now);
    await enqueueEvent(ctx, t.orgId, 'Transaction_Updated', transactionEventData(t, current.status));
    return t;
  });
}
