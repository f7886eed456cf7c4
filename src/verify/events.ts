/**
 * The public shape of every event borderd delivers, shared by the daemon (which writes it) and the
 * verification library (which hands it to integrators). Types only and one constant: no runtime deps.
 *
 * @module verify/events
 */
export const EVENT_TYPES = [
  'Transaction_Created',
  'Transaction_Updated',
  'VirtualAccount_Created',
  'VirtualAccount_CreationFailed',
  'IdentityComplianceCheck_Updated',
  'IdentityComplianceCheck_Completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const TRANSACTION_TYPES = ['Deposit', 'Withdrawal', 'Transfer', 'TransferToExternalWallet', 'Swap', 'Approval'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const TRANSACTION_STATUSES = [
  'Submitted',
  'Verifying',
  'Orchestrating',
  'Pending',
  'Processing',
  'AwaitingDocuments',
  'Completed',
  'Failed',
  'Cancelled',
  'Refunded',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** data of Transaction_Created and Transaction_Updated. */
export interface TransactionEventData {
  id: string;
  type: TransactionType;
  status: TransactionStatus;
  /** The status before this change; null on creation. */
  previousStatus: TransactionStatus | null;
  amount: string | null;
  currency: string | null;
  network: string | null;
  source: Record<string, unknown> | null;
  destination: Record<string, unknown> | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * A compliance check goes Pending -> InProgress -> Completed; only Completed carries a result.
 * The daemon's producers (services/compliance-checks.ts, the admin routes and CLI) use these same
 * constants, so the types integrators get are exactly what borderd emits.
 */
export const COMPLIANCE_STATUSES = ['Pending', 'InProgress', 'Completed'] as const;
export type ComplianceStatus = (typeof COMPLIANCE_STATUSES)[number];
export const COMPLIANCE_RESULTS = ['Approved', 'Rejected'] as const;
export type ComplianceResult = (typeof COMPLIANCE_RESULTS)[number];

/** data of IdentityComplianceCheck_Updated and IdentityComplianceCheck_Completed. */
export interface ComplianceCheckEventData {
  id: string;
  identityId: string;
  status: ComplianceStatus;
  /** Set only when status is Completed. */
  result: ComplianceResult | null;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Created goes with VirtualAccount_Created, CreationFailed (with a failureReason) with VirtualAccount_CreationFailed. */
export const VIRTUAL_ACCOUNT_STATUSES = ['Created', 'CreationFailed'] as const;
export type VirtualAccountStatus = (typeof VIRTUAL_ACCOUNT_STATUSES)[number];

/** data of VirtualAccount_Created and VirtualAccount_CreationFailed. */
export interface VirtualAccountEventData {
  id: string;
  identityId: string | null;
  accountId: string | null;
  currency: string | null;
  status: VirtualAccountStatus;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface EventDataByType {
  Transaction_Created: TransactionEventData;
  Transaction_Updated: TransactionEventData;
  VirtualAccount_Created: VirtualAccountEventData;
  VirtualAccount_CreationFailed: VirtualAccountEventData;
  IdentityComplianceCheck_Updated: ComplianceCheckEventData;
  IdentityComplianceCheck_Completed: ComplianceCheckEventData;
}

/**
 * The JSON body of every delivery. `id` is stable across retries and replays: receivers dedupe on it.
 */
export interface WebhookEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  organizationId: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  /** createdAt in milliseconds since the epoch. */
  timestamp: number;
  data: EventDataByType[T];
}

/** Any event, discriminated by `type`. */
export type AnyWebhookEvent = { [T in EventType]: WebhookEvent<T> }[EventType];
