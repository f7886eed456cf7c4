import { describe, expect, it, vi } from 'vitest';
import { hasPrefix, idLowerBound, newId, sortAfter } from '../../src/domain/ids.js';

const SHAPE = /^evt_[0-9a-hjkmnp-tv-z]{26}$/;

describe('newId', () => {
  it('makes distinct, well-formed ids that sort in the order they were made, across refills of the random pool', () => {
    // 1,000 ids over four milliseconds: several pool refills (256 ids each) and many ids per millisecond.
    const ids = Array.from({ length: 1000 }, (_, i) => newId('evt', 1_700_000_000_000 + Math.floor(i / 250)));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) {
      expect(id).toMatch(SHAPE);
      expect(hasPrefix(id, 'evt')).toBe(true);
    }
  });

  it('keeps random parts independent: fresh ids of a new millisecond do not share their bytes', () => {
    const base = 1_800_000_000_000;
    const tails = Array.from({ length: 600 }, (_, i) => newId('req', base + i).slice(-16));
    expect(new Set(tails).size).toBe(tails.length);
  });

  it('sorts an id after every lower bound of a time at or before it', () => {
    const at = 1_900_000_000_000;
    const id = newId('evt', at);
    expect(idLowerBound('evt', at) < id).toBe(true);
    expect(idLowerBound('evt', at + 1) > id).toBe(true);
  });

  it('sortAfter: ids made afterwards sort after an id another process made (same millisecond, or a clock ahead)', () => {
    const at = 2_000_000_000_000;
    const time = idLowerBound('evt', at).slice(4, 14);
    const foreign = `evt_${time}yzzzzzzzzzzzzzzz`;
    sortAfter(foreign);
    // Our clock is behind theirs: the id takes their time and counts up from above their random part.
    const first = newId('evt', at - 5);
    expect(first > foreign).toBe(true);
    expect(first.slice(4, 14)).toBe(time);
    // An older id changes nothing.
    sortAfter(idLowerBound('evt', at - 1000));
    const next = newId('evt', at);
    expect(next > first).toBe(true);
    expect(next).toMatch(SHAPE);
  });

  it('sortAfter: two processes that adopt the same id make different ids after it', async () => {
    const floor = newId('evt', 2_100_000_000_000);
    const fresh = async () => {
      vi.resetModules(); // a module of its own, as another process has
      return (await import('../../src/domain/ids.js')) as typeof import('../../src/domain/ids.js');
    };
    const [a, b] = [await fresh(), await fresh()];
    a.sortAfter(floor);
    b.sortAfter(floor);
    const made = (ids: typeof a) => Array.from({ length: 100 }, () => ids.newId('dlv', 2_100_000_000_000));
    const [fromA, fromB] = [made(a), made(b)];
    for (const id of [...fromA, ...fromB]) expect(id.slice(4) > floor.slice(4)).toBe(true);
    expect(fromA.filter((id) => fromB.includes(id))).toEqual([]);
  });
});
