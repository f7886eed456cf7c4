import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDatabaseBusy, sql, type Database, type Db } from '../../src/db/database.js';
import { GREATEST } from '../../src/db/dialect.js';
import { SqliteDatabase } from '../../src/db/sqlite.js';
import { openSqlite, tempDir } from '../support/context.js';
import { holdWriteLock } from '../support/write-lock.js';
import { openConfigured } from './fixtures/configured-database.js';

async function withTable(db: Database): Promise<Database> {
  await db.exec('CREATE TABLE t (x INTEGER PRIMARY KEY)');
  return db;
}

const file = () => join(tempDir('borderd-sqlite-'), 's.db');
const rows = (db: Db) => db.column<number>('SELECT x FROM t ORDER BY x');
const insert = (db: Db, x: number) => db.run('INSERT INTO t (x) VALUES (?)', [x]);
const connOf = (db: Database) => (db as SqliteDatabase).conn;

/** A promise the test settles when it chooses, to hold a transaction open across turns of the event loop. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Whether `promise` is still pending 20 ms from now: long enough for anything not held back to have run. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  return !settled;
}

describe('SqliteDatabase statements', () => {
  it('answer rows, one row, one value, one column and the rows changed, with ? parameters', async () => {
    const db = await withTable(openSqlite(file()));
    expect(await db.run('INSERT INTO t (x) VALUES (?), (?)', [1, 2])).toBe(2);
    expect(await db.all('SELECT x FROM t WHERE x > ? ORDER BY x', [0])).toEqual([{ x: 1 }, { x: 2 }]);
    expect(await db.get('SELECT x FROM t WHERE x = ?', [2])).toEqual({ x: 2 });
    expect(await db.get('SELECT x FROM t WHERE x = ?', [3])).toBeUndefined();
    expect(await db.value('SELECT x FROM t WHERE x = ?', [1])).toBe(1);
    expect(await db.value('SELECT x FROM t WHERE x = ?', [3])).toBeUndefined();
    expect(await db.column('SELECT x FROM t ORDER BY x DESC')).toEqual([2, 1]);
    // A statement whose SQL failed answers a rejected promise, not a throw at the call.
    const failed = db.get('SELECT * FROM nowhere');
    await expect(failed).rejects.toThrow(/no such table/);
  });

  it('run the SQLite text of SQL written per engine', async () => {
    const db = openSqlite(file());
    expect(await db.value({ sqlite: 'SELECT 1', postgres: 'SELECT 2' })).toBe(1);
    const larger = sql`SELECT ${GREATEST}(?, ?)`;
    expect(larger).toEqual({ sqlite: 'SELECT MAX(?, ?)', postgres: 'SELECT GREATEST(?, ?)' });
    expect(await db.value(larger, [3, 4])).toBe(4);
  });

  it('share a compiled statement between value() and get() without one changing what the other answers', async () => {
    const db = openSqlite(file());
    expect(await db.value('SELECT 7 AS n')).toBe(7);
    expect(await db.get('SELECT 7 AS n')).toEqual({ n: 7 });
    expect(await db.column('SELECT 7 AS n')).toEqual([7]);
    expect(await db.all('SELECT 7 AS n')).toEqual([{ n: 7 }]);
  });

  it('say where the database is, answer ping while open, and refuse statements once closed', async () => {
    const path = file();
    const db = openSqlite(path);
    expect(db.location).toBe(path);
    expect(db.open).toBe(true);
    expect(db.inTransaction).toBe(false);
    expect(await db.ping()).toBe(true);
    await db.close();
    expect(db.open).toBe(false);
    expect(await db.ping()).toBe(false);
    await expect(db.value('SELECT 1')).rejects.toThrow(/not open/);
  });
});

describe('SqliteDatabase transactions', () => {
  it('a statement sent to the database while a transaction is open waits for its commit, and sees all of it', async () => {
    const db = await withTable(openSqlite(file()));
    const held = gate();
    const transaction = db.transaction(async (tx) => {
      await insert(tx, 1);
      await held.opened;
      await insert(tx, 2);
    });
    const read = rows(db);
    expect(await pending(read)).toBe(true);
    held.open();
    await transaction;
    // Run in the middle of the transaction, it would have answered [1].
    expect(await read).toEqual([1, 2]);
  });

  it("a statement sent to the database while a transaction is open is not part of it: it sees none of a rolled-back transaction's writes, and its own are kept", async () => {
    const db = await withTable(openSqlite(file()));
    const held = gate();
    const transaction = db.transaction(async (tx) => {
      await insert(tx, 1);
      await held.opened;
      throw new Error('refused');
    });
    const read = rows(db);
    const write = insert(db, 2);
    expect(await pending(write)).toBe(true);
    held.open();
    await expect(transaction).rejects.toThrow('refused');
    expect(await read).toEqual([]);
    expect(await write).toBe(1);
    expect(await rows(db)).toEqual([2]);
  });

  // Several waiters wake on the same commit: each must find the connection free when it runs, not
  // only when it woke.
  it('transactions that wait for the same one run one after another', async () => {
    const db = await withTable(openSqlite(file()));
    const held = gate();
    const first = db.transaction(async (tx) => {
      await insert(tx, 1);
      await held.opened;
    });
    const second = db.transaction(async (tx) => {
      await insert(tx, 2);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await insert(tx, 3);
    });
    const third = db.transaction((tx) => insert(tx, 4));
    held.open();
    await Promise.all([first, second, third]);
    expect(await rows(db)).toEqual([1, 2, 3, 4]);
  });

  it('a statement that waited for a transaction does not run inside the next one', async () => {
    const db = await withTable(openSqlite(file()));
    const held = gate();
    const first = db.transaction(() => held.opened);
    const second = db.transaction(async (tx) => {
      await insert(tx, 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('refused');
    });
    const write = insert(db, 2);
    held.open();
    await first;
    await expect(second).rejects.toThrow('refused');
    expect(await write).toBe(1);
    // Run inside the second transaction, the write would have been rolled back with it.
    expect(await rows(db)).toEqual([2]);
  });

  it('a body that uses the database instead of its handle fails after the busy timeout instead of hanging, and writes nothing', async () => {
    const db = await withTable(openConfigured(file(), { busyTimeoutMs: 100 }));
    const started = performance.now();
    await expect(
      db.transaction(async (tx) => {
        await insert(tx, 1);
        await insert(db, 2);
      }),
    ).rejects.toThrow(/waited the whole busy timeout for an open transaction to end/);
    expect(performance.now() - started).toBeLessThan(2000);
    // The transaction rolled back and let go of the connection.
    expect(connOf(db).inTransaction).toBe(false);
    expect(await rows(db)).toEqual([]);
  });

  it('a handle used after its transaction ended throws, a savepoint handle too', async () => {
    const db = await withTable(openSqlite(file()));
    let leaked: Db | undefined;
    let leakedSavepoint: Db | undefined;
    await db.transaction(async (tx) => {
      expect(tx.inTransaction).toBe(true);
      expect(tx.open).toBe(true);
      leaked = tx;
      await tx.savepoint(async (sp) => {
        leakedSavepoint = sp;
      });
      expect(leakedSavepoint!.open).toBe(false);
      await expect(insert(leakedSavepoint!, 1)).rejects.toThrow(/used after its transaction ended/);
    });
    expect(leaked!.open).toBe(false);
    await expect(insert(leaked!, 2)).rejects.toThrow(/used after its transaction ended/);
    await expect(leaked!.transaction((tx) => insert(tx, 3))).rejects.toThrow(/used after its transaction ended/);
    expect(await rows(db)).toEqual([]);
  });

  it('close waits for the open transaction to commit', async () => {
    const db = await withTable(openSqlite(file()));
    const held = gate();
    const transaction = db.transaction(async (tx) => {
      await held.opened;
      await insert(tx, 1);
    });
    const closed = db.close();
    expect(await pending(closed)).toBe(true);
    held.open();
    await Promise.all([transaction, closed]);
    expect(db.open).toBe(false);
    expect(await rows(openSqlite(db.location))).toEqual([1]);
  });

  it('close lets the transactions waiting for the open one finish first', async () => {
    const db = await withTable(openSqlite(file()));
    const held = gate();
    const first = db.transaction(async (tx) => {
      await held.opened;
      await insert(tx, 1);
    });
    const second = db.transaction(async (tx) => {
      await insert(tx, 2);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await insert(tx, 3);
    });
    const closed = db.close();
    held.open();
    await Promise.all([first, second, closed]);
    expect(await rows(openSqlite(db.location))).toEqual([1, 2, 3]);
  });
});

describe('SqliteDatabase savepoints', () => {
  it("roll back the savepoint's writes alone and return its error; the transaction goes on and commits the rest", async () => {
    const db = await withTable(openSqlite(file()));
    const refused = new Error('refused');
    const outcomes = await db.transaction(async (tx) => {
      await insert(tx, 1);
      const failed = await tx.savepoint(async (sp) => {
        await insert(sp, 2);
        throw refused;
      });
      const done = await tx.savepoint(async (sp) => insert(sp, 3));
      return [failed, done];
    });
    expect(outcomes).toEqual([
      { ok: false, err: refused },
      { ok: true, value: 1 },
    ]);
    expect(await rows(db)).toEqual([1, 3]);
  });

  it('nest: an inner failure rolls back the inner savepoint only', async () => {
    const db = await withTable(openSqlite(file()));
    await db.transaction(async (tx) => {
      const outer = await tx.savepoint(async (sp) => {
        await insert(sp, 1);
        const inner = await sp.savepoint(async (inner) => {
          await insert(inner, 2);
          throw new Error('inner');
        });
        expect(inner.ok).toBe(false);
        await insert(sp, 3);
      });
      expect(outer.ok).toBe(true);
    });
    expect(await rows(db)).toEqual([1, 3]);
  });

  it('a transaction inside a transaction is a savepoint: its error is thrown, its writes alone rolled back', async () => {
    const db = await withTable(openSqlite(file()));
    await db.transaction(async (tx) => {
      await insert(tx, 1);
      await expect(
        tx.transaction(async (inner) => {
          await insert(inner, 2);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      expect(await tx.tryTransaction((inner) => insert(inner, 3))).toEqual({ ok: true, value: 1 });
    });
    expect(await rows(db)).toEqual([1, 3]);
  });

  // A full group-commit batch: one savepoint per write.
  it("of one transaction, however many, keep the connection's other statements compiled", async () => {
    const db = await withTable(openSqlite(file()));
    const conn = connOf(db);
    const compiled = conn.prepare('SELECT x FROM t ORDER BY x');
    await db.transaction(async (tx) => {
      for (let x = 0; x < 256; x++) await tx.savepoint((sp) => insert(sp, x));
    });
    expect(await db.value('SELECT COUNT(*) FROM t')).toBe(256);
    // A statement dropped from the cache is left for the collector (src/db/sqlite-connection.ts, "Native objects kept").
    expect(conn.prepare('SELECT x FROM t ORDER BY x')).toBe(compiled);
  });

  it('throw, not return, an error that ends the whole transaction, which then writes nothing', async () => {
    const db = await withTable(openSqlite(file()));
    await db.exec('CREATE TABLE u (x INTEGER UNIQUE ON CONFLICT ROLLBACK)');
    await db.run('INSERT INTO u (x) VALUES (7)');
    let ranAfter = false;
    await expect(
      db.transaction(async (tx) => {
        await insert(tx, 1);
        await tx.savepoint((sp) => sp.run('INSERT INTO u (x) VALUES (7)'));
        ranAfter = true;
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(ranAfter).toBe(false);
    expect(connOf(db).inTransaction).toBe(false);
    expect(await rows(db)).toEqual([]);
    expect(await db.column('SELECT x FROM u')).toEqual([7]);
  });
});

describe('SqliteDatabase.tryTransaction', () => {
  it('answers ok:false at once, without running the body, while another process holds the write lock; runs it once the lock is free', async () => {
    const path = file();
    const db = await withTable(openConfigured(path, { busyTimeoutMs: 3000 }));
    const holder = holdWriteLock(path);
    let ran = false;
    const started = performance.now();
    const refused = await db.tryTransaction(async (tx) => {
      ran = true;
      return insert(tx, 1);
    });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && isDatabaseBusy(refused.err)).toBe(true);
    expect(ran).toBe(false);
    // No busy wait: far less than the 3 s busy timeout.
    expect(performance.now() - started).toBeLessThan(1000);
    // The busy timeout is back for the statements that do wait.
    expect(await db.value('PRAGMA busy_timeout')).toBe(3000);
    holder.release();
    expect(await db.tryTransaction((tx) => insert(tx, 1))).toEqual({ ok: true, value: 1 });
    expect(await rows(db)).toEqual([1]);
  });

  it('throws errors from inside its body, having written nothing', async () => {
    const db = await withTable(openSqlite(file()));
    await expect(
      db.tryTransaction(async (tx) => {
        await insert(tx, 1);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await rows(db)).toEqual([]);
  });

  it('transaction() instead waits in the busy wait, and fails busy once it has waited the busy timeout', async () => {
    const path = file();
    const db = await withTable(openConfigured(path, { busyTimeoutMs: 100 }));
    holdWriteLock(path);
    const err = await db.transaction((tx) => insert(tx, 1)).catch((e: unknown) => e);
    expect(isDatabaseBusy(err)).toBe(true);
    expect(connOf(db).inTransaction).toBe(false);
  });
});

describe('SqliteDatabase.snapshot', () => {
  it('sees one state across its statements while another connection commits', async () => {
    const path = file();
    const db = await withTable(openSqlite(path));
    const other = openSqlite(path);
    await insert(db, 1);
    const seen = await db.snapshot(async (tx) => {
      const before = await rows(tx);
      await insert(other, 2); // another process's commit, between two statements of the snapshot
      return [before, await rows(tx)];
    });
    expect(seen).toEqual([[1], [1]]);
    expect(await rows(db)).toEqual([1, 2]);
  });

  it('inside a transaction is that transaction', async () => {
    const db = await withTable(openSqlite(file()));
    await db.transaction(async (tx) => {
      await insert(tx, 1);
      expect(await tx.snapshot((s) => rows(s))).toEqual([1]);
    });
  });

  it('runs on a read-only connection', async () => {
    const path = file();
    await insert(await withTable(openSqlite(path)), 1);
    const readonly = openSqlite(path, { readonly: true });
    expect(await readonly.snapshot((tx) => rows(tx))).toEqual([1]);
  });
});
