import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bookkeeping, openDatabase } from '../../src/db/open.js';
import { tempDir } from '../support/context.js';

const level = (db: ReturnType<typeof openDatabase>) => db.pragma('synchronous', { simple: true });
const FULL = 2;
const NORMAL = 1;

describe('bookkeeping transactions', () => {
  it('commit without an fsync on a FULL database, and FULL is back afterwards, even after a throw', async () => {
    const db = openDatabase(join(tempDir(), 'b.db'));
    expect(level(db)).toBe(FULL);
    expect(bookkeeping(db, () => level(db))).toBe(NORMAL);
    expect(level(db)).toBe(FULL);
    expect(() =>
      bookkeeping(db, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(level(db)).toBe(FULL);
    await db.close();
  });

  it('change nothing inside a transaction already open, or on a database configured NORMAL', async () => {
    const db = openDatabase(join(tempDir(), 'c.db'));
    expect((await db.transaction(() => bookkeeping(db, () => level(db))))()).toBe(FULL);
    await db.close();
    const relaxed = openDatabase(join(tempDir(), 'd.db'), { synchronous: 'normal' });
    expect(bookkeeping(relaxed, () => level(relaxed))).toBe(NORMAL);
    expect(level(relaxed)).toBe(NORMAL);
    await relaxed.close();
  });
});
