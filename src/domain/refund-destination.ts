/**
 * Refund destinations: the organization's default (its addresses, one per network) and a
 * transaction's own, with the rules each must meet beyond its field types.
 *
 * @module domain/refund-destination
 */
import { z } from 'zod';
import { addressProblem, asNetworkId, NETWORK_IDS, type NetworkId } from './crypto-address.js';
import type { FieldError } from './errors.js';

export const REFUND_DESTINATION_TYPES = ['Address', 'Source', 'ProviderBalance'] as const;
export type RefundDestinationType = (typeof REFUND_DESTINATION_TYPES)[number];

export interface OrgRefundAddress {
  network: NetworkId;
  address: string;
}

/** The stored default, with autoRefund and autoFiatReturn always present (defaults applied). */
export interface OrgRefundDestination {
  type: RefundDestinationType;
  addresses?: OrgRefundAddress[];
  autoRefund: boolean;
  autoFiatReturn: boolean;
}

/**
 * The rules beyond field types: Address needs 1+ addresses with at most one per network, the other
 * types take none, and every address must be valid for its network. Paths are relative to the body.
 */
export function refundDestinationProblems(d: { type: RefundDestinationType; addresses?: OrgRefundAddress[] | undefined }): FieldError[] {
  const errors: FieldError[] = [];
  if (d.type !== 'Address') {
    if (d.addresses !== undefined)
      errors.push({ path: 'addresses', message: `addresses is only allowed when type is Address (type is ${d.type})` });
    return errors;
  }
  if (!d.addresses || d.addresses.length === 0) {
    errors.push({ path: 'addresses', message: 'type Address needs at least one address' });
    return errors;
  }
  const seen = new Map<NetworkId, number>();
  d.addresses.forEach((a, i) => {
    const first = seen.get(a.network);
    if (first !== undefined)
      errors.push({
        path: `addresses.${i}.network`,
        message: `a second address for ${a.network} (first at addresses.${first}); one refund address per network`,
      });
    else seen.set(a.network, i);
    const problem = addressProblem(a.network, a.address);
    if (problem) errors.push({ path: `addresses.${i}.address`, message: `not a valid ${a.network} address: ${problem}` });
  });
  return errors;
}

/** A transaction's own refund destination as given ({ type?, network?, address?, autoRefund? }). */
export interface TransactionRefundDestinationInput {
  type?: RefundDestinationType | undefined;
  network?: NetworkId | undefined;
  address?: string | undefined;
}

/**
 * The per-transaction destination's rules, with the default's address rules: type Address (the
 * default type) needs an address, and the address must be valid for its network, which is
 * `network` or else the transaction's own. Paths are relative to the destination object.
 */
export function transactionRefundDestinationProblems(
  d: TransactionRefundDestinationInput,
  transactionNetwork: string | null | undefined,
): FieldError[] {
  const type = d.type ?? 'Address';
  if (d.address === undefined) return type === 'Address' ? [{ path: 'address', message: 'type Address needs an address' }] : [];
  const network = d.network ?? asNetworkId(transactionNetwork);
  if (!network)
    return [
      {
        path: 'network',
        message: 'needed to check the address: the transaction has no crypto network, name one of ' + NETWORK_IDS.join(', '),
      },
    ];
  const problem = addressProblem(network, d.address);
  return problem ? [{ path: 'address', message: `not a valid ${network} address: ${problem}` }] : [];
}

/** The per-transaction refund destination as createTransaction accepts it and the refund plan reads it. */
export const transactionDestinationSchema = z.object({
  type: z.enum(REFUND_DESTINATION_TYPES).default('Address'),
  network: z.enum(NETWORK_IDS).optional(),
  address: z.string().min(1).max(128).optional(),
  autoRefund: z.boolean().optional(),
});
