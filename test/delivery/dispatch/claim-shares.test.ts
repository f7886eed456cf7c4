/**
 * Which rows a pass claims: the max-min fair shares between organizations, a pass's turn order and
 * per-webhook room, and when a finished send asks for the next pass.
 */
import { describe, expect, it } from 'vitest';
import { shareClaims } from '../../../src/delivery/dispatch/claim-shares.js';

describe('shareClaims', () => {
  function claims(due: string[], held: Record<string, number>, budget: number, wants: Record<string, number> = {}) {
    const got: Record<string, number> = {};
    shareClaims(new Set(due), new Map(Object.entries(held)), budget, (orgId, room) => {
      const took = Math.max(0, Math.min(room, (wants[orgId] ?? Infinity) - (got[orgId] ?? 0)));
      got[orgId] = (got[orgId] ?? 0) + took;
      return took;
    });
    return got;
  }

  it('splits the claims max-min fair: equal parts, a part not used goes to the others, one alone gets everything', () => {
    expect(claims(['a'], {}, 128)).toEqual({ a: 128 });
    expect(claims(['a'], { a: 100 }, 128)).toEqual({ a: 28 });
    expect(claims(['a', 'b'], {}, 128)).toEqual({ a: 64, b: 64 });
    expect(claims(['a', 'b'], {}, 128, { b: 1 })).toEqual({ a: 127, b: 1 });
    expect(claims(['a', 'b', 'c'], {}, 8)).toEqual({ a: 3, b: 3, c: 2 });
    // One that took everything while it was alone claims nothing more; the newcomer still gets its part.
    expect(claims(['a', 'b'], { a: 128 }, 128)).toEqual({ a: 0, b: 64 });
    // However many came after it, the process never holds more than twice its claims.
    expect(claims(['c'], { a: 128, b: 64 }, 128)).toEqual({ c: 43 });
    expect(claims(['d'], { a: 128, b: 64, c: 43 }, 128)).toEqual({ d: 21 });
    expect(claims(['e'], { a: 128, b: 64, c: 43, d: 21 }, 128)).toEqual({ e: 0 });
    // One holding claims with nothing due counts: its holding is its part.
    expect(claims(['b'], { a: 100 }, 128)).toEqual({ b: 64 });
    expect(claims(['b'], { a: 20 }, 128)).toEqual({ b: 108 });
    // What a small one leaves over is split again between the others.
    expect(claims(['a', 'b', 'c'], {}, 9, { a: 1 })).toEqual({ a: 1, b: 4, c: 4 });
    expect(claims(['a', 'b', 'c'], {}, 90, { a: 1, b: 20 })).toEqual({ a: 1, b: 20, c: 69 });
  });
});
