/**
 * Group commit: acknowledged writes that arrive together share one transaction and so one fsync.
 * Each write runs in its own savepoint, so one that throws rolls back alone and the others commit
 * (one that ends the whole transaction sends each write of the batch to a transaction of its own);
 * every caller's promise settles only after the shared COMMIT returned, so nothing is answered
 * before it is durable. At synchronous FULL a commit's fsync holds the daemon's main thread about
 * as long as a delivery's work (docs/performance.md), so at a few hundred writes per second sharing
 * it is what keeps writes from starving delivery.
 *
 * SQLite only: PostgreSQL commits each write in a transaction of its own on its pool. A group there
 * would run its writes' round trips one after another on one connection, each in a savepoint, and
 * that costs more than the WAL flush it would share (docs/scaling.md, "Why grouping writes does not
 * pay on PostgreSQL").
 *
 * Work functions wait on nothing but their transaction: the batch's writes run one after another
 * in it, and a write that awaited anything else would hold the others (and the database) meanwhile.
 *
 * @module db/group-commit
 */
import { AsyncResource } from 'node:async_hooks';
import type { Db, Outcome } from './database.js';

/** A write: a function of the transaction it runs in. */
export type Write<T> = (tx: Db) => Promise<T>;

/**
 * Runs a write and resolves once it is committed: the API's group commit in the daemon;
 * `commitAlone` elsewhere (CLI commands, tests, PostgreSQL).
 */
export type Commit = <T>(fn: Write<T>) => Promise<T>;

/** A Commit that runs each write in a transaction of its own, at once (SQLite waits in its busy wait for a held lock). */
export const commitAlone =
  (db: Db): Commit =>
  (fn) =>
    db.transaction(fn);

interface Pending {
  fn: Write<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** When this write first found the write lock held by another process (performance.now()). */
  busySince?: number;
}

/** Writes per transaction at most. */
const MAX_BATCH = 256;
/** How soon a batch that found the write lock held tries again. */
const BUSY_RETRY_MS = 10;

class GroupCommitter {
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly windowMs: number,
    private readonly busyTimeoutMs: number,
    private readonly committed: (writes: number) => void,
  ) {}

  run<T>(fn: Write<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // Bound to the caller's async context, so a write runs in its own request's (its trace span), not the batch's.
      this.#queue.push({ fn: AsyncResource.bind(fn), resolve: resolve as (v: unknown) => void, reject });
      if (!this.#scheduled) this.#schedule(this.windowMs);
    });
  }

  #schedule(delayMs: number): void {
    this.#scheduled = true;
    if (delayMs > 0) setTimeout(() => void this.#flush(), delayMs);
    else setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    // A very large burst is committed in slices, so one transaction never holds the event loop long.
    const batch = this.#queue.splice(0, MAX_BATCH);
    const busy = await this.#commit(batch);
    if (busy !== undefined) {
      this.#waitForLock(batch, busy);
      return;
    }
    if (this.#queue.length > 0 && !this.#scheduled) this.#schedule(0);
  }

  /**
   * Another process holds the write lock: the batch waits for it on a timer, not in SQLite's busy
   * wait, so the event loop goes on serving reads and sends. A write that has waited
   * database.busyTimeoutMs in all fails with the busy error (a 503), as it would have after the
   * busy wait.
   */
  #waitForLock(batch: Pending[], err: unknown): void {
    const now = performance.now();
    // Every queued write waits from now, not only the slice that tried: each one's wait is its own.
    this.#queue = [...batch, ...this.#queue].filter((item) => {
      item.busySince ??= now;
      if (now - item.busySince < this.busyTimeoutMs) return true;
      item.reject(err);
      return false;
    });
    if (this.#queue.length > 0) this.#schedule(BUSY_RETRY_MS);
  }

  /** Commits the batch and settles each write; the busy error instead when the write lock was held. */
  async #commit(batch: Pending[]): Promise<unknown> {
    let attempt: Outcome<Outcome<unknown>[]>;
    let began = false;
    try {
      // An error that ends the whole transaction is thrown by savepoint(): nothing of the batch is
      // written, and the writes after it must not run outside it.
      attempt = await this.db.tryTransaction(async (tx) => {
        began = true;
        const outcomes: Outcome<unknown>[] = [];
        for (const item of batch) outcomes.push(await tx.savepoint(item.fn));
        return outcomes;
      });
    } catch (err) {
      if (!began || batch.length === 1) {
        for (const item of batch) item.reject(err);
        return undefined;
      }
      // A write ended the shared transaction (ON CONFLICT ROLLBACK, RAISE(ROLLBACK)), or COMMIT failed
      // (a full disk refusing the batch's pages): all of it was rolled back. Each write then runs in a
      // transaction of its own, so only the ones that fail alone fail; the others lost nothing but time.
      for (const item of batch) {
        try {
          item.resolve(await this.db.transaction(item.fn));
        } catch (alone) {
          item.reject(alone);
        }
      }
      return undefined;
    }
    if (!attempt.ok) return attempt.err;
    this.committed(batch.length);
    attempt.value.forEach((o, i) => {
      const item = batch[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.err);
    });
    return undefined;
  }
}

/**
 * The API's commit: on SQLite, a group commit that runs a write in the next batch and resolves once
 * that batch is committed. The batch closes `windowMs` after its first write
 * (database.groupCommitWindowMs; 0: the next turn of the event loop). Writes arrive a few
 * milliseconds apart at a few hundred per second, so a next-turn flush would still commit them one
 * by one; a window of a few milliseconds lets them share an fsync, each write answered at most that
 * much later. On PostgreSQL, each write's own transaction. `committed` is told each batch's size.
 */
export function createGroupCommit(db: Db, windowMs = 0, busyTimeoutMs = 5000, committed: (writes: number) => void = () => {}): Commit {
  if (db.dialect === 'postgres') return commitAlone(db);
  const committer = new GroupCommitter(db, windowMs, busyTimeoutMs, committed);
  return (fn) => committer.run(fn);
}
