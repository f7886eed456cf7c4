import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { makeContext } from '../support/context.js';

// PRAGMA synchronous reads back 1 for NORMAL and 2 for FULL.
const level = async (ctx: Promise<Awaited<ReturnType<typeof makeContext>>>) => (await ctx).db.value<number>('PRAGMA synchronous');

describe('database.synchronous', () => {
  it('defaults to full, and the connection commits at FULL', async () => {
    expect(loadConfig({ env: {} }).database.synchronous).toBe('full');
    expect(await level(makeContext())).toBe(2);
  });
  it('opens at NORMAL when the config says normal', async () => {
    expect(await level(makeContext({ 'database.synchronous': 'normal' }))).toBe(1);
    expect(await level(makeContext({ 'database.synchronous': 'full' }))).toBe(2);
  });
  it('refuses other values, naming the key', () => {
    expect(() => loadConfig({ env: { BORDERD_DATABASE_SYNCHRONOUS: 'off' } })).toThrow(
      /database\.synchronous: .*environment variable BORDERD_DATABASE_SYNCHRONOUS/,
    );
  });
});
