import { describe, expect, it } from 'vitest';
import { canMove, TRANSITIONS } from '../../src/domain/transaction-status.js';
import { TRANSACTION_STATUSES } from '../../src/verify/events.js';

describe('transaction state machine', () => {
  it('covers all ten statuses and only names known ones', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...TRANSACTION_STATUSES].sort());
    for (const next of Object.values(TRANSITIONS)) for (const s of next) expect(TRANSACTION_STATUSES).toContain(s);
  });

  it('allows the documented moves and refuses the rest', () => {
    expect(canMove('Submitted', 'Verifying')).toBe(true);
    expect(canMove('Processing', 'Completed')).toBe(true);
    expect(canMove('Completed', 'Refunded')).toBe(true);
    expect(canMove('Completed', 'Failed')).toBe(false);
    expect(canMove('Cancelled', 'Submitted')).toBe(false);
    expect(canMove('Refunded', 'Completed')).toBe(false);
    expect(canMove('Submitted', 'Submitted')).toBe(false);
  });
});
