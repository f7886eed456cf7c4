import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createGroupCommit } from '../../src/db/group-commit.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { tempDir } from '../support/context.js';

async function setup(
  windowMs = 0,
  busyTimeoutMs = 50,
): Promise<{ db: Db; other: Db; commit: ReturnType<typeof createGroupCommit>; topLevelTransactions: () => number }> {
  const file = join(tempDir(), 'g.db');
  const db = openDatabase(file, { busyTimeoutMs });
  await db.exec('CREATE TABLE t (x INTEGER PRIMARY KEY)');
  // Count transactions that really BEGIN (not savepoints inside one).
  let top = 0;
  const original = db.transaction.bind(db);
  db.transaction = (async (fn: (...a: unknown[]) => unknown) => {
    const tx = await original(fn);
    const wrap =
      (mode?: 'immediate') =>
      (...args: unknown[]) => {
        if (!db.inTransaction) top++;
        return mode ? tx[mode](...args) : tx(...args);
      };
    return Object.assign(wrap(), { immediate: wrap('immediate'), deferred: wrap(), exclusive: wrap() });
  }) as Db['transaction'];
  return { db, other: openDatabase(file), commit: createGroupCommit(db, windowMs, busyTimeoutMs), topLevelTransactions: () => top };
}

const rows = (db: Db) => (db.prepare('SELECT x FROM t ORDER BY x').all() as { x: number }[]).map((r) => r.x);

describe('group commit', () => {
  it('commits writes queued together in one transaction, and settles each only once it is committed', async () => {
    const { db, other, commit, topLevelTransactions } = await setup();
    const seenByOther: number[][] = [];
    const writes = [1, 2, 3].map((x) =>
      commit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(x).changes).then((changes) => {
        seenByOther.push(rows(other)); // another connection sees the committed rows by now
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
    await commit(() => db.prepare('INSERT INTO t (x) VALUES (4)').run());
    expect(topLevelTransactions()).toBe(2); // a later write is its own batch
  });

  it('with a window, gathers writes that arrive a few milliseconds apart into one commit', async () => {
    const { db, other, commit, topLevelTransactions } = await setup(40);
    const insert = (x: number) => commit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(x));
    // The clock is the test's: on a slow machine a real 5 ms sleep can outlast the 40 ms window.
    vi.useFakeTimers();
    try {
      const first = insert(1);
      vi.advanceTimersByTime(5);
      const second = insert(2); // a later turn of the event loop, inside the window
      expect(topLevelTransactions()).toBe(0); // the window is still open: nothing committed yet
      vi.advanceTimersByTime(35);
      await Promise.all([first, second]);
    } finally {
      vi.useRealTimers();
    }
    expect(topLevelTransactions()).toBe(1);
    expect(rows(other)).toEqual([1, 2]);
  });

  it('rolls back only the write that threw; the others commit', async () => {
    const { db, other, commit } = await setup();
    const a = commit(() => db.prepare('INSERT INTO t (x) VALUES (1)').run());
    const b = commit(() => {
      db.prepare('INSERT INTO t (x) VALUES (2)').run();
      throw new Error('refused');
    });
    const c = commit(() => db.prepare('INSERT INTO t (x) VALUES (3)').run());
    await expect(b).rejects.toThrow('refused');
    await Promise.all([a, c]);
    expect(rows(other)).toEqual([1, 3]);
  });

  it('when a write ends the shared transaction, runs each write of the batch alone: only that one fails', async () => {
    const { db, other, commit, topLevelTransactions } = await setup();
    db.exec('CREATE TABLE u (x INTEGER UNIQUE ON CONFLICT ROLLBACK)');
    db.prepare('INSERT INTO u (x) VALUES (7)').run();
    // The write after it never runs as an autocommit inside the ended transaction: it waits for its own.
    let afterRanInEndedTransaction = false;
    const before = commit(() => db.prepare('INSERT INTO t (x) VALUES (1)').run());
    const aborting = commit(() => db.prepare('INSERT INTO u (x) VALUES (7)').run()); // rolls back everything
    const after = commit(() => {
      if (!db.inTransaction) afterRanInEndedTransaction = true;
      return db.prepare('INSERT INTO t (x) VALUES (3)').run();
    });
    const start = topLevelTransactions();
    await expect(aborting).rejects.toThrow(/UNIQUE/);
    await Promise.all([before, after]);
    expect(afterRanInEndedTransaction).toBe(false);
    expect(rows(other)).toEqual([1, 3]);
    // The shared attempt, then one transaction per write.
    expect(topLevelTransactions() - start).toBe(4);
  });

  it('when COMMIT fails (a full disk), runs each write alone: the ones that fit commit', async () => {
    const { db, other, commit } = await setup();
    // A deferred check fails at COMMIT, for the batch as a whole, as a full disk does.
    db.exec('CREATE TABLE big (n INTEGER NOT NULL REFERENCES nothing_yet(id) DEFERRABLE INITIALLY DEFERRED)');
    db.exec('CREATE TABLE nothing_yet (id INTEGER PRIMARY KEY)');
    const small = [1, 2].map((x) => commit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(x)));
    const failing = commit(() => db.prepare('INSERT INTO big (n) VALUES (1)').run());
    await expect(failing).rejects.toThrow(/FOREIGN KEY/);
    await Promise.all(small);
    expect(rows(other)).toEqual([1, 2]);
  });

  it('refuses a write that returns a promise, leaving nothing of it', async () => {
    const { db, other, commit } = await setup();
    await expect(
      commit(() => {
        db.prepare('INSERT INTO t (x) VALUES (9)').run();
        return Promise.resolve();
      }),
    ).rejects.toThrow(/cannot return a promise/);
    expect(rows(other)).toEqual([]);
  });

  it('rejects every write of a batch whose transaction cannot begin, and writes none of them', async () => {
    const { db, other, commit } = await setup();
    other.exec('BEGIN IMMEDIATE'); // another process holds the write lock past the busy timeout
    const batch = [1, 2].map((x) => commit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(x)));
    for (const w of batch) await expect(w).rejects.toThrow(/locked|busy/i);
    other.exec('ROLLBACK');
    expect(rows(other)).toEqual([]);
  });

  it('waits for a write lock another process holds on a timer, not in SQLite: the event loop goes on meanwhile', async () => {
    const { db, other, commit } = await setup(0, 5_000);
    other.exec('BEGIN IMMEDIATE'); // another process (a CLI import) holds the write lock
    const write = commit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(1));
    // While the write waits, timers keep firing: the loop is not held in a busy wait.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    await new Promise((r) => setTimeout(r, 400));
    other.exec('COMMIT'); // the lock is let go: the write goes in
    await write;
    clearInterval(ticker);
    expect(rows(other)).toEqual([1]);
    // A busy wait would have held the thread (and so this test's COMMIT) until the busy timeout, then failed the write.
    expect(ticks).toBeGreaterThan(10);
  });

  it('fails every queued write that waited database.busyTimeoutMs for a held lock, not only the first slice of them', async () => {
    const { db, other, commit } = await setup(0, 200);
    other.exec('BEGIN IMMEDIATE'); // held 500 ms: past the busy timeout of every write queued now
    const results = Array.from({ length: 600 }, (_, i) =>
      commit(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(i)).then(
        () => 'written',
        () => 'busy',
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    other.exec('COMMIT');
    // Writes queued behind the first 256 used to start their wait only when they reached the head:
    // the last slice was still waiting at 500 ms and went in.
    expect(new Set(await Promise.all(results))).toEqual(new Set(['busy']));
    expect(rows(db)).toEqual([]);
  });
});
