import { describe, expect, it } from 'vitest';
import { buildAllowlist, ipAllowed } from '../../src/inbound/sender-check.js';

describe('allowlist', () => {
  const list = buildAllowlist(['203.0.113.0/24', '2001:db8::/32', '198.51.100.7']);
  it('matches IPv4, IPv6 and IPv4-mapped IPv6', () => {
    expect(ipAllowed(list, '203.0.113.9')).toBe(true);
    expect(ipAllowed(list, '::ffff:203.0.113.9')).toBe(true);
    expect(ipAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(ipAllowed(list, '198.51.100.7')).toBe(true);
    expect(ipAllowed(list, '198.51.100.8')).toBe(false);
    expect(ipAllowed(list, '203.0.114.1')).toBe(false);
    expect(ipAllowed(list, '2001:db9::1')).toBe(false);
    expect(ipAllowed(list, undefined)).toBe(false);
  });
  it('lets everything through when empty', () => {
    expect(ipAllowed(buildAllowlist([]), '8.8.8.8')).toBe(true);
  });
  it('names a bad entry', () => {
    expect(() => buildAllowlist(['10.0.0.0/33'])).toThrow(/10.0.0.0\/33/);
    expect(() => buildAllowlist(['nope'])).toThrow(/nope/);
    expect(() => buildAllowlist(['10.0.0.0/8/1'])).toThrow();
  });
});
