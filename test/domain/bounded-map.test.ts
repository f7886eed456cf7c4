import { describe, expect, it } from 'vitest';
import { remember } from '../../src/domain/bounded-map.js';

describe('remember (bounded cache map)', () => {
  it('keeps at most max entries, drops the oldest, and makes a re-set entry the newest', () => {
    const m = new Map<string, number>();
    for (const k of ['a', 'b', 'c']) remember(m, k, 1, 3);
    remember(m, 'a', 2, 3); // a is now the newest: b is the oldest
    remember(m, 'd', 1, 3);
    expect([...m.keys()]).toEqual(['c', 'a', 'd']);
    expect(m.get('a')).toBe(2);
  });

  it('keeps nothing when max is below 1, and removes the key it was given', () => {
    const m = new Map([['a', 1]]);
    remember(m, 'a', 2, 0);
    remember(m, 'b', 2, 0);
    expect(m.size).toBe(0);
  });
});
