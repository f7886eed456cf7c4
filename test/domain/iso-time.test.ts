import { describe, expect, it } from 'vitest';
import { parseIsoTime } from '../../src/domain/iso-time.js';

describe('parseIsoTime', () => {
  it('reads ISO 8601 times with a zone, with or without seconds and fraction', () => {
    expect(parseIsoTime('2026-11-20T09:00:00Z')).toBe(Date.UTC(2026, 10, 20, 9));
    expect(parseIsoTime('2026-11-20T09:00Z')).toBe(Date.UTC(2026, 10, 20, 9));
    expect(parseIsoTime('2026-11-20T10:00:00.500+01:00')).toBe(Date.UTC(2026, 10, 20, 9, 0, 0, 500));
    expect(parseIsoTime('2028-02-29T23:30:00-05:00')).toBe(Date.UTC(2028, 2, 1, 4, 30)); // a leap day, in its own offset
  });

  it('refuses what Date.parse would read loosely, a time without a zone, and dates that do not exist', () => {
    for (const loose of [
      'Nov 20',
      '5',
      'hello 1',
      '2026-11-20',
      '2026-11-20T09:00:00',
      '2026-11-20 09:00:00Z',
      ' 2026-11-20T09:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-02-29T10:00:00+01:00',
      '2026-04-31T23:59Z',
      '2026-01-01T24:00:00Z',
    ]) {
      expect(parseIsoTime(loose), loose).toBeUndefined();
    }
  });
});
