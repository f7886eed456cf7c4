import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../../src/domain/calendar-date.js';

describe('isCalendarDate', () => {
  it.each(['2026-02-28', '2024-02-29', '0000-01-01', '0001-01-01', '0099-12-31', '9999-12-31'])('accepts %s', (d) => {
    expect(isCalendarDate(d)).toBe(true);
  });

  it.each(['2026-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-1-5', '26-01-01', '2026-01-01T00:00:00Z', ''])(
    'refuses %s',
    (d) => {
      expect(isCalendarDate(d)).toBe(false);
    },
  );
});
