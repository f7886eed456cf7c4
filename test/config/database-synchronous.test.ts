import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { makeContext } from '../support/context.js';

// PRAGMA synchronous reads back 1 for NORMAL and 2 for FULL.
const level = (ctx: ReturnType<typeof makeContext>) => ctx.db.pragma('synchronous', { simple: true });

describe('database.synchronous', () => {
  it('defaults to full, and the connection commits at FULL', () => {
    expect(loadConfig({ env: {} }).database.synchronous).toBe('full');
    expect(level(makeContext())).toBe(2);
  });
  it('opens at NORMAL when the config says normal', () => {
    expect(level(makeContext({ 'database.synchronous': 'normal' }))).toBe(1);
    expect(level(makeContext({ 'database.synchronous': 'full' }))).toBe(2);
  });
  it('refuses other values, naming the key', () => {
    expect(() => loadConfig({ env: { BORDERD_DATABASE_SYNCHRONOUS: 'off' } })).toThrow(
      /database\.synchronous: .*environment variable BORDERD_DATABASE_SYNCHRONOUS/,
    );
  });
});
