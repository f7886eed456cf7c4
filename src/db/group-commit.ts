/**
 * Group commit: acknowledged writes that arrive together share one transaction and so one fsync.
 * Each write runs in its own savepoint, so one that throws rolls back alone and the others commit
 * (one that ends the whole transaction sends each write of the batch to a transaction of its own);
 * every caller's promise settles only after the shared COMMIT returned, so nothing is answered
 * before it is durable. At synchronous FULL a commit's fsync holds the daemon's main thread about
 * as long as a delivery's work (docs/performance.md), so at a few hundred writes per second sharing
 * it is what keeps writes from starving delivery.
 *
 * Work functions must be synchronous: a write that awaits cannot share a transaction.
 *
 * @module db/group-commit
 */
import { inSavepoint, tryWriteNow, type Db, type SavepointOutcome } from './open.js';

interface Pending {
  fn: () => unknown;
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
  ) {}

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#scheduled) this.#schedule(this.windowMs);
    });
  }

  #schedule(delayMs: number): void {
    this.#scheduled = true;
    if (delayMs > 0) setTimeout(() => this.#flush(), delayMs);
    else setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    // A very large burst is committed in slices, so one transaction never holds the event loop long.
    const batch = this.#queue.splice(0, MAX_BATCH);
    const busy = this.#commit(batch);
    if (busy !== undefined) {
      this.#waitForLock(batch, busy);
      return;
    }
    if (this.#queue.length > 0) this.#schedule(0);
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
  #commit(batch: Pending[]): unknown {
    let attempt: SavepointOutcome<SavepointOutcome<unknown>[]>;
    let began = false;
    try {
      // An error that ends the whole transaction is rethrown by inSavepoint: nothing of the batch is
      // written, and the writes after it must not run as autocommits.
      attempt = tryWriteNow(this.db, () => {
        began = true;
        return batch.map((item) => inSavepoint(this.db, item.fn));
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
          item.resolve(this.db.transaction(item.fn).immediate());
        } catch (alone) {
          item.reject(alone);
        }
      }
      return undefined;
    }
    if (!attempt.ok) return attempt.err;
    attempt.value.forEach((o, i) => {
      const item = batch[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.err);
    });
    return undefined;
  }
}

/**
 * A group commit for one connection: runs a synchronous write in the next batch and resolves once
 * that batch is committed. The batch closes `windowMs` after its first write
 * (database.groupCommitWindowMs; 0: the next turn of the event loop). Writes arrive a few
 * milliseconds apart at a few hundred per second, so a next-turn flush would still commit them one
 * by one; a window of a few milliseconds lets them share an fsync, each write answered at most that
 * much later.
 */
export function createGroupCommit(db: Db, windowMs = 0, busyTimeoutMs = 5000): Commit {
  const committer = new GroupCommitter(db, windowMs, busyTimeoutMs);
  return (fn) => committer.run(fn);
}

/**
 * Runs a synchronous write and resolves once it is committed: the API's group commit in the daemon;
 * `commitAlone` elsewhere (CLI commands, tests).
 */
export type Commit = <T>(fn: () => T) => Promise<T>;

/** A Commit that runs each write in a transaction of its own, at once, waiting in SQLite's busy wait for a held lock. */
export const commitAlone =
  (db: Db): Commit =>
  async (fn) =>
    db.transaction(fn).immediate();
