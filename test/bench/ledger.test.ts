import { describe, expect, it } from 'vitest';
import { balances, ledgerOf, ledgerRow, unlessVoid } from '../../bench/ledger.js';

describe('a benchmark phase ledger', () => {
  it('balances when every written event was delivered, duplicates counted', () => {
    const l = ledgerOf('backlog', 100, { deliveries: 103, distinctEvents: 100 });
    expect(l).toEqual({ phase: 'backlog', written: 100, delivered: 100, missing: 0, duplicated: 3, unknown: 0 });
    expect(balances(l)).toBe(true);
    expect(unlessVoid(812, l)).toBe(812);
    expect(ledgerRow(l)).toEqual({
      metric: 'ledger, backlog',
      value: 'balanced',
      note: 'written 100, delivered 100, missing 0, duplicated 3',
    });
  });

  it('voids the figures of a phase whose duplicates made up the count while an event is missing', () => {
    const l = ledgerOf('backlog', 100, { deliveries: 100, distinctEvents: 99 });
    expect([l.delivered, l.missing, l.duplicated]).toEqual([99, 1, 1]);
    expect(balances(l)).toBe(false);
    expect(unlessVoid(812, ledgerOf('other', 5, { deliveries: 5, distinctEvents: 5 }), l)).toBe('void');
    expect(ledgerRow(l).value).toBe('VOID');
  });

  it('voids a phase that received events it never wrote', () => {
    const l = ledgerOf('paced', 10, { deliveries: 12, distinctEvents: 12 });
    expect([l.delivered, l.missing, l.unknown]).toEqual([10, 0, 2]);
    expect(balances(l)).toBe(false);
    expect(ledgerRow(l).note).toBe('written 10, delivered 10, missing 0, duplicated 0, unknown 2');
  });
});
