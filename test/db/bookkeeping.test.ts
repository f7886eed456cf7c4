import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { tempDir } from '../support/context.js';
import { holdWriteLock } from '../support/write-lock.js';
import { openConfigured } from './fixtures/configured-database.js';

const level = (db: Db) => db.value<number>('PRAGMA synchronous');
const FULL = 2;
const NORMAL = 1;

describe('bookkeeping transactions', () => {
  it('commit without an fsync on a FULL database, and FULL is back afterwards, even after a throw', async () => {
    const db = openConfigured(join(tempDir(), 'b.db'));
    expect(await level(db)).toBe(FULL);
    expect(await db.transaction(level, { durability: 'bookkeeping' })).toBe(NORMAL);
    expect(await level(db)).toBe(FULL);
    expect(await db.tryTransaction(level, { durability: 'bookkeeping' })).toEqual({ ok: true, value: NORMAL });
    expect(await level(db)).toBe(FULL);
    await expect(
      db.transaction(
        async () => {
          throw new Error('boom');
        },
        { durability: 'bookkeeping' },
      ),
    ).rejects.toThrow('boom');
    expect(await level(db)).toBe(FULL);
    // Durable transactions keep FULL.
    expect(await db.transaction(level)).toBe(FULL);
    expect(await db.transaction(level, { durability: 'durable' })).toBe(FULL);
  });

  it('put FULL back when the transaction could not begin', async () => {
    const path = join(tempDir(), 'l.db');
    const db = openConfigured(path, { busyTimeoutMs: 50 });
    const holder = holdWriteLock(path);
    expect((await db.tryTransaction(level, { durability: 'bookkeeping' })).ok).toBe(false);
    expect(await level(db)).toBe(FULL);
    await expect(db.transaction(level, { durability: 'bookkeeping' })).rejects.toThrow(/locked|busy/i);
    expect(await level(db)).toBe(FULL);
    holder.release();
  });

  it('change nothing inside a transaction already open, or on a database configured NORMAL', async () => {
    const db = openConfigured(join(tempDir(), 'c.db'));
    expect(await db.transaction((tx) => tx.transaction(level, { durability: 'bookkeeping' }))).toBe(FULL);
    expect(await db.transaction((tx) => tx.tryTransaction(level, { durability: 'bookkeeping' }))).toEqual({ ok: true, value: FULL });
    const relaxed = openConfigured(join(tempDir(), 'd.db'), { synchronous: 'normal' });
    expect(await level(relaxed)).toBe(NORMAL);
    expect(await relaxed.transaction(level, { durability: 'bookkeeping' })).toBe(NORMAL);
    expect(await level(relaxed)).toBe(NORMAL);
  });
});
