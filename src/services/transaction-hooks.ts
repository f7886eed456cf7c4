import type { AppContext } from '../context.js';
import type { TransactionStatus } from '../verify/events.js';
import { recordRefundPlanOnFailure } from './refunds.js';

/**
 * Reactions to a transaction's status change that must commit or roll back with it (a refund plan
 * recorded when it fails, for example). Each hook runs inside the SQLite transaction of the change;
 * throwing aborts the change and its events.
 */
export interface TransactionStatusChange {
  ctx: AppContext;
  orgId: string;
  transactionId: string;
  from: TransactionStatus | null;
  to: TransactionStatus;
  nowMs: number;
}

export type TransactionHook = (change: TransactionStatusChange) => void;

/** Every feature's hooks, in the order they run. */
export const transactionHooks: TransactionHook[] = [recordRefundPlanOnFailure];
