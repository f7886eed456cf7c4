/**
 * What happens to a failed transaction's funds, decided once when it moves to Failed.
 *
 * @module domain/refund-plan
 */
import type { NetworkId } from './crypto-address.js';
import type { OrgRefundDestination, RefundDestinationType } from './refund-destination.js';

/**
 * The states of a refund plan:
 * - Created: eligible, waits for an operator (autoRefund false); `borderd refunds dispatch` moves it.
 * - Paused: autoRefund true but the default destination is older than 90 days (isStaleReject);
 *   re-confirming the default dispatches it, an operator may dispatch it too.
 * - Dispatched: handed over for execution (automatically, or by an operator).
 * - ManualHandling: a failed fiat payout with autoFiatReturn false, or with autoFiatReturn true and an
 *   Address default whose address cannot be chosen (see fiatReturnAddress); handled outside borderd.
 * - NoDestination: neither the transaction nor the default names a destination for its network.
 */
export const REFUND_PLAN_STATES = ['Created', 'Paused', 'Dispatched', 'ManualHandling', 'NoDestination'] as const;
export type RefundPlanState = (typeof REFUND_PLAN_STATES)[number];
export const REFUND_PLAN_KINDS = ['CryptoRefund', 'FiatReturnAsCrypto', 'ManualFiat', 'None'] as const;
export type RefundPlanKind = (typeof REFUND_PLAN_KINDS)[number];
export const DESTINATION_SOURCES = ['transaction', 'default', 'none'] as const;
export type DestinationSource = (typeof DESTINATION_SOURCES)[number];

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
  /**
   * The network the funds came in on, when the transaction's `source` names one. A failed fiat
   * payout has no network of its own; its crypto return goes back on this network when it can.
   */
  sourceNetwork?: NetworkId | null;
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

type Resolved = { from: DestinationSource; destination: PlannedDestination | null; why?: string };

/**
 * The network a crypto return of a failed fiat payout uses with an Address default (the payout has no
 * network of its own): the source network when the default has an address for it, else the default's
 * only address, else none (several addresses and nothing to choose by: an operator decides).
 */
function fiatReturnAddress(input: RefundPlanInput, d: OrgRefundDestination): Resolved {
  const addresses = d.addresses ?? [];
  const bySource = input.sourceNetwork ? addresses.find((a) => a.network === input.sourceNetwork) : undefined;
  const pick = bySource ?? (addresses.length === 1 ? addresses[0] : undefined);
  if (pick) return { from: 'default', destination: { type: 'Address', network: pick.network, address: pick.address } };
  const why = input.sourceNetwork
    ? `the default has no address for the source network ${input.sourceNetwork} and ${addresses.length} addresses to choose from`
    : `the transaction names no source network and the default has ${addresses.length} addresses to choose from`;
  return { from: 'none', destination: null, why };
}

function resolveDestination(input: RefundPlanInput): Resolved {
  if (input.transactionDestination) {
    const { autoRefund: _ignored, ...destination } = input.transactionDestination;
    return { from: 'transaction', destination };
  }
  const d = input.orgDefault?.destination;
  if (!d) return { from: 'none', destination: null };
  if (d.type !== 'Address') return { from: 'default', destination: { type: d.type } };
  if (input.isFiatPayout && input.network === null) return fiatReturnAddress(input, d);
  const match = input.network ? d.addresses?.find((a) => a.network === input.network) : undefined;
  return match
    ? { from: 'default', destination: { type: 'Address', network: match.network, address: match.address } }
    : { from: 'none', destination: null };
}

/** A failed fiat payout left to an operator, for `reason`. */
const manualFiat = (autoRefund: boolean, reason: string): RefundPlanDecision => ({
  state: 'ManualHandling',
  kind: 'ManualFiat',
  destinationFrom: 'none',
  destination: null,
  autoRefund,
  reason,
});

export function decideRefundPlan(input: RefundPlanInput): RefundPlanDecision {
  const autoRefund = input.transactionDestination?.autoRefund ?? input.orgDefault?.destination.autoRefund ?? true;
  if (input.isFiatPayout && !(input.orgDefault?.destination.autoFiatReturn ?? false)) {
    return manualFiat(autoRefund, 'failed fiat payout and autoFiatReturn is false');
  }
  const kind: RefundPlanKind = input.isFiatPayout ? 'FiatReturnAsCrypto' : 'CryptoRefund';
  const { from, destination, why } = resolveDestination(input);
  if (!destination && why) {
    // A fiat return with an Address default that names several networks and none to choose by.
    return manualFiat(autoRefund, `failed fiat payout with autoFiatReturn: ${why}`);
  }
  if (!destination) {
    return {
      state: 'NoDestination',
      kind: 'None',
      destinationFrom: 'none',
      destination: null,
      autoRefund,
      reason: `no per-transaction destination and no default for network ${input.network ?? '(none)'}`,
    };
  }
  if (!autoRefund)
    return {
      state: 'Created',
      kind,
      destinationFrom: from,
      destination,
      autoRefund,
      reason: 'autoRefund is false: waits for a manual dispatch',
    };
  if (from === 'default' && input.orgDefault?.isStaleReject) {
    return {
      state: 'Paused',
      kind,
      destinationFrom: from,
      destination,
      autoRefund,
      reason: 'the default destination is stale (isStaleReject): re-confirm it to dispatch',
    };
  }
  return { state: 'Dispatched', kind, destinationFrom: from, destination, autoRefund, reason: 'dispatched automatically' };
}

/** Whether an operator may dispatch a plan in this state. */
export const canDispatch = (state: RefundPlanState): boolean => state === 'Created' || state === 'Paused';
