import { describe, expect, it } from 'vitest';
import { addressKey, FailureBudget } from '../../src/domain/failure-budget.js';

describe('FailureBudget', () => {
  it('lets a key fail perMinute times, then makes it wait until one try has refilled', () => {
    const b = new FailureBudget(3);
    for (let i = 0; i < 3; i++) {
      expect(b.waitMs('1.2.3.4', 0)).toBe(0);
      b.spend('1.2.3.4', 0);
    }
    expect(b.waitMs('1.2.3.4', 0)).toBe(20_000); // one try every 20 s at 3 a minute
    expect(b.waitMs('1.2.3.4', 15_000)).toBe(5_000);
    expect(b.waitMs('1.2.3.4', 20_000)).toBe(0);
    // Other keys are not touched.
    expect(b.waitMs('5.6.7.8', 0)).toBe(0);
  });

  it('refills continuously, never above perMinute', () => {
    const b = new FailureBudget(2);
    b.spend('k', 0);
    b.spend('k', 0);
    // A long quiet time refills two tries, not more.
    b.spend('k', 10 * 60_000);
    expect(b.waitMs('k', 10 * 60_000)).toBe(0);
    b.spend('k', 10 * 60_000);
    expect(b.waitMs('k', 10 * 60_000)).toBe(30_000);
  });

  it('takes back a try spent in advance that was not a failure, never above perMinute', () => {
    const b = new FailureBudget(2);
    b.spend('k', 0);
    b.spend('k', 0);
    expect(b.waitMs('k', 0)).toBeGreaterThan(0);
    b.refund('k', 0);
    expect(b.waitMs('k', 0)).toBe(0);
    b.refund('k', 0);
    b.refund('k', 0); // already full: nothing more, and nothing kept
    expect(b.size).toBe(0);
    b.spend('k', 0);
    b.spend('k', 0);
    expect(b.waitMs('k', 0)).toBeGreaterThan(0);
  });

  it('refills nothing when the clock moves back', () => {
    const b = new FailureBudget(1);
    b.spend('k', 60_000);
    expect(b.waitMs('k', 0)).toBe(60_000);
  });

  it('tracks at most maxKeys keys, the least recently failed going first', () => {
    const b = new FailureBudget(1, 2);
    b.spend('a', 0);
    b.spend('b', 0);
    b.spend('c', 0);
    expect(b.size).toBe(2);
    expect(b.waitMs('a', 0)).toBe(0);
    expect(b.waitMs('b', 0)).toBeGreaterThan(0);
    expect(b.waitMs('c', 0)).toBeGreaterThan(0);
  });
});

describe('addressKey', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6, and counts IPv6 by its /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:0DB8:0000:0001:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('')).toBe('');
  });
});
