/**
 * The orchestrated transaction's state machine. A transaction starts Submitted; Completed, Failed
 * and Cancelled end the flow, except that a Completed or Failed transaction can still be Refunded.
 * AwaitingDocuments pauses verification and returns to Verifying when documents arrive.
 *
 * @module domain/transaction-status
 */
import type { TransactionStatus } from '../verify/events.js';

export const TRANSITIONS: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  Submitted: ['Verifying', 'Orchestrating', 'Pending', 'Processing', 'AwaitingDocuments', 'Failed', 'Cancelled'],
  Verifying: ['AwaitingDocuments', 'Orchestrating', 'Pending', 'Processing', 'Failed', 'Cancelled'],
  AwaitingDocuments: ['Verifying', 'Orchestrating', 'Failed', 'Cancelled'],
  Orchestrating: ['Pending', 'Processing', 'Completed', 'Failed', 'Cancelled'],
  Pending: ['Processing', 'Completed', 'Failed', 'Cancelled'],
  Processing: ['Completed', 'Failed'],
  Completed: ['Refunded'],
  Failed: ['Refunded'],
  Cancelled: [],
  Refunded: [],
};

export const INITIAL_STATUS: TransactionStatus = 'Submitted';

export function canMove(from: TransactionStatus, to: TransactionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}
