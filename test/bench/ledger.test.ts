import { describe, expect, it } from 'vitest';
import { balances, ledgerOf, ledgerOfAll, ledgerRow, unlessVoid } from '../../bench/ledger.js';

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

  it('adds several phases into one ledger, which balances only when each of them does', () => {
    const whole = ledgerOf('warm 1', 100, { deliveries: 101, distinctEvents: 100 });
    const short = ledgerOf('warm 2', 100, { deliveries: 100, distinctEvents: 99 });
    // One phase's event missing, another's received twice: the sums alone would look whole.
    const extra = ledgerOf('warm 3', 100, { deliveries: 101, distinctEvents: 101 });
    expect(ledgerOfAll('warm', [whole, whole])).toEqual({
      phase: 'warm',
      written: 200,
      delivered: 200,
      missing: 0,
      duplicated: 2,
      unknown: 0,
    });
    expect(balances(ledgerOfAll('warm', [whole, whole]))).toBe(true);
    expect(balances(ledgerOfAll('warm', [whole, short]))).toBe(false);
    expect(balances(ledgerOfAll('warm', [short, extra]))).toBe(false);
  });
});
