/**
 * A benchmark phase's ledger: events written (acknowledged), delivered (different events the
 * verifying receiver saw), missing and duplicated. A phase whose ledger does not balance (an event
 * missing, or one the phase never wrote) measured something else than it claims, so the figures
 * resting on it are reported as void, never as numbers. Duplicates balance: delivery is at least
 * once, and they are counted.
 *
 * @module bench/ledger
 */
import type { Row } from './report-table.js';

export interface Ledger {
  phase: string;
  written: number;
  delivered: number;
  missing: number;
  duplicated: number;
  /** Different events received beyond those written: another phase's, or a count gone wrong. */
  unknown: number;
}

/** The ledger of a phase that wrote `written` events, from the receiver's counts since its reset. */
export function ledgerOf(phase: string, written: number, seen: { deliveries: number; distinctEvents: number }): Ledger {
  return {
    phase,
    written,
    delivered: Math.min(seen.distinctEvents, written),
    missing: Math.max(0, written - seen.distinctEvents),
    duplicated: seen.deliveries - seen.distinctEvents,
    unknown: Math.max(0, seen.distinctEvents - written),
  };
}

/** One ledger for several phases together: it balances when each of them does. */
export function ledgerOfAll(phase: string, ledgers: readonly Ledger[]): Ledger {
  const total = (key: 'written' | 'delivered' | 'missing' | 'duplicated' | 'unknown') => ledgers.reduce((n, l) => n + l[key], 0);
  return {
    phase,
    written: total('written'),
    delivered: total('delivered'),
    missing: total('missing'),
    duplicated: total('duplicated'),
    unknown: total('unknown'),
  };
}

export const balances = (l: Ledger): boolean => l.missing === 0 && l.unknown === 0 && l.delivered === l.written;

/** `value`, or 'void' when a ledger it rests on does not balance. */
export const unlessVoid = (value: number, ...ledgers: Ledger[]): number | 'void' => (ledgers.every(balances) ? value : 'void');

export function ledgerRow(l: Ledger): Row {
  return {
    metric: `ledger, ${l.phase}`,
    value: balances(l) ? 'balanced' : 'VOID',
    note: `written ${l.written}, delivered ${l.delivered}, missing ${l.missing}, duplicated ${l.duplicated}${l.unknown > 0 ? `, unknown ${l.unknown}` : ''}`,
  };
}
