import { describe, expect, it } from 'vitest';
import { editDistance, nearestWord } from '../../src/domain/nearest-word.js';

describe('nearestWord', () => {
  it('finds the known word a typo stands for, and nothing for a word far from all of them', () => {
    expect(editDistance('limt', 'limit')).toBe(1);
    expect(nearestWord('limt', ['state', 'limit', 'since'])).toBe('limit');
    expect(nearestWord('startng-after', ['starting-after', 'state'])).toBe('starting-after');
    expect(nearestWord('Delivered', ['pending', 'delivered'])).toBe('delivered');
    expect(nearestWord('xyz', ['pending', 'delivered'])).toBeUndefined();
  });
});
