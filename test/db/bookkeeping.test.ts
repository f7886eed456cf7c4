import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/database.js';
import type { SqliteDatabase } from '../../src/db/sqlite.js';
import { tempDir } from '../support/context.js';
import { holdWriteLock } from '../support/write-lock.js';
import { openConfigured } from './fixtures/configured-database.js';

const level = (db: Db) => db.value<number>('PRAGMA synchronous');
const FULL = 2;
const NORMAL = 1;

describe('bookkeeping transactions', () => {
  it('commit without an fsync on a FULL database, and every durable commit after them is FULL, even after a throw', async () => {
    const db = openConfigured(join(tempDir(), 'b.db'));
    expect(await level(db)).toBe(FULL);
    expect(await db.transaction(level, { durability: 'bookkeeping' })).toBe(NORMAL);
    expect(await db.transaction(level)).toBe(FULL);
    expect(await db.tryTransaction(level, { durability: 'bookkeeping' })).toEqual({ ok: true, value: NORMAL });
    expect(await db.tryTransaction(level)).toEqual({ ok: true, value: FULL });
    await expect(
      db.transaction(
        async () => {
          throw new Error('boom');
        },
        { durability: 'bookkeeping' },
      ),
    ).rejects.toThrow('boom');
    expect(await db.transaction(level, { durability: 'durable' })).toBe(FULL);
    expect(await db.snapshot(level)).toBe(FULL);
  });

  it('commit a write outside a transaction with an fsync after a bookkeeping transaction, and a script too', async () => {
    const db = openConfigured(join(tempDir(), 'w.db'));
    await db.transaction(async () => {}, { durability: 'bookkeeping' });
    expect(await db.run('PRAGMA user_version = 7')).toBe(0);
    expect(await level(db)).toBe(FULL);
    await db.transaction(async () => {}, { durability: 'bookkeeping' });
    await db.exec('CREATE TABLE t (x)');
    expect(await level(db)).toBe(FULL);
    await db.transaction(async () => {}, { durability: 'bookkeeping' });
    expect(await db.column('INSERT INTO t VALUES (1) RETURNING x')).toEqual([1]);
    expect(await level(db)).toBe(FULL);
  });

  it('set no pragma between bookkeeping transactions, nor for reads between them', async () => {
    const db = openConfigured(join(tempDir(), 's.db')) as SqliteDatabase;
    await db.exec('CREATE TABLE t (x)');
    const prepare = vi.spyOn(db.conn, 'prepare');
    const pragmas = () => prepare.mock.calls.filter(([text]) => text.startsWith('PRAGMA synchronous')).length;
    await db.transaction((tx) => tx.run('INSERT INTO t VALUES (1)'), { durability: 'bookkeeping' });
    expect(pragmas()).toBe(1);
    for (let i = 0; i < 3; i++) {
      await db.tryTransaction((tx) => tx.run('INSERT INTO t VALUES (1)'), { durability: 'bookkeeping' });
      expect(await db.value('SELECT count(*) FROM t')).toBe(i + 2);
    }
    expect(pragmas()).toBe(1);
    await db.transaction((tx) => tx.run('INSERT INTO t VALUES (1)'));
    expect(pragmas()).toBe(2);
  });

  it('commit durably after a bookkeeping transaction that could not begin', async () => {
    const path = join(tempDir(), 'l.db');
    const db = openConfigured(path, { busyTimeoutMs: 50 });
    const holder = holdWriteLock(path);
    expect((await db.tryTransaction(level, { durability: 'bookkeeping' })).ok).toBe(false);
    await expect(db.transaction(level, { durability: 'bookkeeping' })).rejects.toThrow(/locked|busy/i);
    holder.release();
    expect(await db.transaction(level)).toBe(FULL);
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
