import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Database, Db } from '../../src/db/database.js';
import { createGroupCommit } from '../../src/db/group-commit.js';
import { SqliteDatabase } from '../../src/db/sqlite.js';
import { openSqlite, tempDir } from '../support/context.js';
import { holdWriteLock } from '../support/write-lock.js';
import { openConfigured } from './fixtures/configured-database.js';

async function setup(windowMs = 0, busyTimeoutMs = 50) {
  const file = join(tempDir(), 'g.db');
  const db = openConfigured(file, { busyTimeoutMs });
  await db.exec('CREATE TABLE t (x INTEGER PRIMARY KEY)');
  // Count transactions that really BEGIN (not savepoints inside one, nor tries that found the lock held).
  let top = 0;
  const began =
    <T>(fn: (tx: Db) => Promise<T>) =>
    (tx: Db): Promise<T> => {
      top++;
      return fn(tx);
    };
  const transaction = db.transaction.bind(db);
  const tryTransaction = db.tryTransaction.bind(db);
  db.transaction = (fn, opts) => transaction(began(fn), opts);
  db.tryTransaction = (fn, opts) => tryTransaction(began(fn), opts);
  return {
    file,
    db,
    // Another connection, as another process reads the file.
    other: openSqlite(file),
    commit: createGroupCommit(db, windowMs, busyTimeoutMs),
    topLevelTransactions: () => top,
  };
}

const rows = (db: Db) => db.column<number>('SELECT x FROM t ORDER BY x');
const insert = (tx: Db, x: number) => tx.run('INSERT INTO t (x) VALUES (?)', [x]);
const connOf = (db: Database) => (db as SqliteDatabase).conn;

describe('group commit', () => {
  it('commits writes queued together in one transaction, and settles each only once it is committed', async () => {
    const { other, commit, topLevelTransactions } = await setup();
    const seenByOther: number[][] = [];
    const writes = [1, 2, 3].map((x) =>
      commit((tx) => insert(tx, x)).then(async (changes) => {
        seenByOther.push(await rows(other)); // another connection sees the committed rows by now
        return changes;
      }),
    );
    expect(await Promise.all(writes)).toEqual([1, 1, 1]);
    expect(topLevelTransactions()).toBe(1);
    expect(seenByOther).toEqual([
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
    ]);
    await commit((tx) => insert(tx, 4));
    expect(topLevelTransactions()).toBe(2); // a later write is its own batch
  });

  it('with a window, gathers writes that arrive a few milliseconds apart into one commit', async () => {
    const { other, commit, topLevelTransactions } = await setup(40);
    const write = (x: number) => commit((tx) => insert(tx, x));
    // The clock is the test's: on a slow machine a real 5 ms sleep can outlast the 40 ms window.
    vi.useFakeTimers();
    try {
      const first = write(1);
      vi.advanceTimersByTime(5);
      const second = write(2); // a later turn of the event loop, inside the window
      expect(topLevelTransactions()).toBe(0); // the window is still open: nothing committed yet
      vi.advanceTimersByTime(35);
      await Promise.all([first, second]);
    } finally {
      vi.useRealTimers();
    }
    expect(topLevelTransactions()).toBe(1);
    expect(await rows(other)).toEqual([1, 2]);
  });

  it('rolls back only the write that threw; the others commit', async () => {
    const { other, commit } = await setup();
    const a = commit((tx) => insert(tx, 1));
    const b = commit(async (tx) => {
      await insert(tx, 2);
      throw new Error('refused');
    });
    const c = commit((tx) => insert(tx, 3));
    await expect(b).rejects.toThrow('refused');
    await Promise.all([a, c]);
    expect(await rows(other)).toEqual([1, 3]);
  });

  it('keeps a write that awaits between its statements whole: what it wrote before and after the await rolls back together', async () => {
    const { other, commit, topLevelTransactions } = await setup();
    const a = commit((tx) => insert(tx, 1));
    const b = commit(async (tx) => {
      await insert(tx, 9);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await insert(tx, 10);
      throw new Error('refused');
    });
    const c = commit((tx) => insert(tx, 3));
    await expect(b).rejects.toThrow('refused');
    await Promise.all([a, c]);
    expect(await rows(other)).toEqual([1, 3]);
    expect(topLevelTransactions()).toBe(1);
  });

  it('when a write ends the shared transaction, runs each write of the batch alone: only that one fails', async () => {
    const { db, other, commit, topLevelTransactions } = await setup();
    await db.exec('CREATE TABLE u (x INTEGER UNIQUE ON CONFLICT ROLLBACK)');
    await db.run('INSERT INTO u (x) VALUES (7)');
    // The write after it never runs as an autocommit after the ended transaction: it waits for its own.
    const afterRan: boolean[] = [];
    const before = commit((tx) => insert(tx, 1));
    const aborting = commit((tx) => tx.run('INSERT INTO u (x) VALUES (7)')); // rolls back everything
    const after = commit((tx) => {
      afterRan.push(connOf(db).inTransaction);
      return insert(tx, 3);
    });
    const start = topLevelTransactions();
    await expect(aborting).rejects.toThrow(/UNIQUE/);
    await Promise.all([before, after]);
    expect(afterRan).toEqual([true]); // once, in a transaction: its own
    expect(await rows(other)).toEqual([1, 3]);
    // The shared attempt, then one transaction per write.
    expect(topLevelTransactions() - start).toBe(4);
  });

  it('when COMMIT fails (a full disk), runs each write alone: the ones that fit commit', async () => {
    const { db, other, commit } = await setup();
    // A deferred check fails at COMMIT, for the batch as a whole, as a full disk does.
    await db.exec('CREATE TABLE big (n INTEGER NOT NULL REFERENCES nothing_yet(id) DEFERRABLE INITIALLY DEFERRED)');
    await db.exec('CREATE TABLE nothing_yet (id INTEGER PRIMARY KEY)');
    const small = [1, 2].map((x) => commit((tx) => insert(tx, x)));
    const failing = commit((tx) => tx.run('INSERT INTO big (n) VALUES (1)'));
    await expect(failing).rejects.toThrow(/FOREIGN KEY/);
    await Promise.all(small);
    expect(await rows(other)).toEqual([1, 2]);
  });

  it("calls a write's rollback hooks when the batch's COMMIT fails, so work it runs again alone is counted once", async () => {
    const { db, commit } = await setup();
    await db.exec('CREATE TABLE big (n INTEGER NOT NULL REFERENCES nothing_yet(id) DEFERRABLE INITIALLY DEFERRED)');
    await db.exec('CREATE TABLE nothing_yet (id INTEGER PRIMARY KEY)');
    // What each write takes outside the database (a budget's token), given back by its rollback hook.
    let taken = 0;
    const taking = (write: (tx: Db) => Promise<unknown>) => async (tx: Db) => {
      taken++;
      tx.onRollback(() => taken--);
      return write(tx);
    };
    const small = [1, 2].map((x) => commit(taking((tx) => insert(tx, x))));
    const failing = commit(taking((tx) => tx.run('INSERT INTO big (n) VALUES (1)')));
    await expect(failing).rejects.toThrow(/FOREIGN KEY/);
    await Promise.all(small);
    // Each write ran twice (in the batch, then alone); only the two that committed keep what they took.
    expect(taken).toBe(2);
    // A commit outside a transaction has nothing to roll back.
    expect(() => db.onRollback(() => (taken = -1))).not.toThrow();
    expect(taken).toBe(2);
  });

  it('rejects every write of a batch whose transaction cannot begin, and writes none of them', async () => {
    const { file, other, commit } = await setup();
    const holder = holdWriteLock(file); // another process holds the write lock past the busy timeout
    const batch = [1, 2].map((x) => commit((tx) => insert(tx, x)));
    for (const w of batch) await expect(w).rejects.toThrow(/locked|busy/i);
    holder.release();
    expect(await rows(other)).toEqual([]);
  });

  it('waits for a write lock another process holds on a timer, not in SQLite: the event loop goes on meanwhile', async () => {
    const { file, other, commit } = await setup(0, 5_000);
    const holder = holdWriteLock(file); // another process (a CLI import) holds the write lock
    const write = commit((tx) => insert(tx, 1));
    // While the write waits, timers keep firing: the loop is not held in a busy wait.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    await new Promise((r) => setTimeout(r, 400));
    holder.release(); // the lock is let go: the write goes in
    await write;
    clearInterval(ticker);
    expect(await rows(other)).toEqual([1]);
    // A busy wait would have held the thread (and so this test's release) until the busy timeout, then failed the write.
    expect(ticks).toBeGreaterThan(10);
  });

  it('fails every queued write that waited database.busyTimeoutMs for a held lock, not only the first slice of them', async () => {
    const { file, db, commit } = await setup(0, 200);
    const holder = holdWriteLock(file); // held 500 ms: past the busy timeout of every write queued now
    const results = Array.from({ length: 600 }, (_, i) =>
      commit((tx) => insert(tx, i)).then(
        () => 'written',
        () => 'busy',
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    holder.release();
    // Writes queued behind the first 256 used to start their wait only when they reached the head:
    // the last slice was still waiting at 500 ms and went in.
    expect(new Set(await Promise.all(results))).toEqual(new Set(['busy']));
    expect(await rows(db)).toEqual([]);
  });

  it('on PostgreSQL, commits each write in a transaction of its own, at once', async () => {
    const transactions: string[] = [];
    const postgres = {
      dialect: 'postgres',
      transaction: async <T>(fn: (tx: Db) => Promise<T>) => {
        transactions.push('begin');
        return fn(postgres);
      },
      tryTransaction: () => Promise.reject(new Error('PostgreSQL has no write lock to try')),
    } as unknown as Db;
    const commit = createGroupCommit(postgres, 40);
    const first = commit(async () => 1);
    expect(transactions).toEqual(['begin']); // not after the 40 ms window
    const second = commit(async () => 2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(transactions).toEqual(['begin', 'begin']);
  });
});
