import type { NetworkId } from './crypto-address.js';
import type { OrgRefundDestination, RefundDestinationType } from './refund-destination.js';

/**
 * What happens to a failed transaction's funds, decided once when it moves to Failed.
 *
 * States:
 * - Created: eligible, waits for an operator (autoRefund false); `borderd refunds dispatch` moves it.
 * - Paused: autoRefund true but the default destination is older than 90 days (isStaleReject);
 *   re-confirming the default dispatches it, an operator may dispatch it too.
 * - Dispatched: handed over for execution (automatically, or by an operator).
 * - ManualHandling: a failed fiat payout with autoFiatReturn false; operations handle it outside borderd.
 * - NoDestination: neither the transaction nor the default names a destination for its network.
 */
export const REFUND_PLAN_STATES = ['Created', 'Paused', 'Dispatched', 'ManualHandling', 'NoDestination'] as const;
export type RefundPlanState = (typeof REFUND_PLAN_STATES)[number];
export type RefundPlanKind = 'CryptoRefund' | 'FiatReturnAsCrypto' | 'ManualFiat' | 'None';
export type DestinationSource = 'transaction' | 'default' | 'none';

export interface PlannedDestination {
  type: RefundDestinationType;
  network?: NetworkId;
  address?: string;
}

/** The per-transaction destination as it is stored on the transaction (already validated there). */
export interface TransactionRefundDestination extends PlannedDestination {
  autoRefund?: boolean;
}

export interface RefundPlanInput {
  network: NetworkId | null;
  /** A fiat payout (a Withdrawal with no crypto network) that failed. */
  isFiatPayout: boolean;
  transactionDestination: TransactionRefundDestination | null;
  orgDefault: { destination: OrgRefundDestination; isStaleReject: boolean } | null;
}

export interface RefundPlanDecision {
  state: RefundPlanState;
  kind: RefundPlanKind;
  destinationFrom: DestinationSource;
  destination: PlannedDestination | null;
  autoRefund: boolean;
  reason: string;
}

function resolveDestination(input: RefundPlanInput): { from: DestinationSource; destination: PlannedDestination | null } {
  if (input.transactionDestination) {
    const { autoRefund: _ignored, ...destination } = input.transactionDestination;
    return { from: 'transaction', destination };
  }
  const d = input.orgDefault?.destination;
  if (!d) return { from: 'none', destination: null };
  if (d.type !== 'Address') return { from: 'default', destination: { type: d.type } };
  const match = input.network ? d.addresses?.find((a) => a.network === input.network) : undefined;
  return match ? { from: 'default', destination: { type: 'Address', network: match.network, address: match.address } } : { from: 'none', destination: null };
}

export function decideRefundPlan(input: RefundPlanInput): RefundPlanDecision {
  const autoRefund = input.transactionDestination?.autoRefund ?? input.orgDefault?.destination.autoRefund ?? true;
  if (input.isFiatPayout && !(input.orgDefault?.destination.autoFiatReturn ?? false)) {
    return { state: 'ManualHandling', kind: 'ManualFiat', destinationFrom: 'none', destination: null, autoRefund, reason: 'failed fiat payout and autoFiatReturn is false' };
  }
  const kind: RefundPlanKind = input.isFiatPayout ? 'FiatReturnAsCrypto' : 'CryptoRefund';
  const { from, destination } = resolveDestination(input);
  if (!destination) {
    return { state: 'NoDestination', kind: 'None', destinationFrom: 'none', destination: null, autoRefund, reason: `no per-transaction destination and no default for network ${input.network ?? '(none)'}` };
  }
  if (!autoRefund) return { state: 'Created', kind, destinationFrom: from, destination, autoRefund, reason: 'autoRefund is false: waits for a manual dispatch' };
  if (from === 'default' && input.orgDefault?.isStaleReject) {
    return { state: 'Paused', kind, destinationFrom: from, destination, autoRefund, reason: 'the default destination is stale (isStaleReject): re-confirm it to dispatch' };
  }
  return { state: 'Dispatched', kind, destinationFrom: from, destination, autoRefund, reason: 'dispatched automatically' };
}

/** Whether an operator may dispatch a plan in this state. */
export const canDispatch = (state: RefundPlanState): boolean => state === 'Created' || state === 'Paused';
