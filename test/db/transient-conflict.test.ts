import { describe, expect, it } from 'vitest';
import { isDatabaseBusy, isDatabaseUnavailable, isTransientConflict } from '../../src/db/database.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isTransientConflict', () => {
  it("is PostgreSQL's deadlock (40P01) and serialization failure (40001)", () => {
    expect(isTransientConflict(withCode('40P01', 'deadlock detected'))).toBe(true);
    expect(isTransientConflict(withCode('40001', 'could not serialize access due to concurrent update'))).toBe(true);
  });

  it('is no other error: not busy, unavailable, a constraint, or a code-less error', () => {
    for (const code of ['55P03', 'SQLITE_BUSY', '08006', '23505', '40002', '40003', '40P0', '']) {
      expect(isTransientConflict(withCode(code))).toBe(false);
    }
    expect(isTransientConflict(new Error('deadlock detected'))).toBe(false);
    expect(isTransientConflict(undefined)).toBe(false);
    expect(isTransientConflict(null)).toBe(false);
    // And the neighbouring classes do not take a conflict for theirs.
    expect(isDatabaseBusy(withCode('40P01'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('40001'))).toBe(false);
  });
});
