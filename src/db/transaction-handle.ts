/**
 * What both engines' transactions share: a handle that refuses statements once its transaction
 * ended; nested transactions and savepoints named by their depth (`sp1`, `sp2`…), released when
 * their body succeeds and rolled back alone when it fails; a snapshot inside a transaction that is
 * that transaction; and a transaction's course, begun, committed or rolled back. Each engine gives
 * the statements themselves (src/db/sqlite.ts, src/db/postgres.ts).
 *
 * @module db/transaction-handle
 */
import type { Db, Dialect, Outcome, Sql, SqlParams } from './database.js';
import { RollbackHooks } from './rollback-hooks.js';

/** An open transaction (or a savepoint of one) on the connection it owns. */
export abstract class TransactionHandle implements Db {
  abstract readonly dialect: Dialect;
  readonly inTransaction = true;
  /** What this scope undoes outside the database if it rolls back (src/db/rollback-hooks.ts). */
  readonly rollbackHooks = new RollbackHooks();
  #ended = false;

  /** `depth`: how many savepoints this handle runs inside; its own savepoints are one deeper. */
  constructor(protected readonly depth: number) {}

  abstract all<T>(sql: Sql, params?: SqlParams): Promise<T[]>;
  abstract get<T>(sql: Sql, params?: SqlParams): Promise<T | undefined>;
  abstract value<T>(sql: Sql, params?: SqlParams): Promise<T | undefined>;
  abstract column<T>(sql: Sql, params?: SqlParams): Promise<T[]>;
  abstract run(sql: Sql, params?: SqlParams): Promise<number>;
  abstract exec(sql: string): Promise<void>;

  /** Runs one statement of the savepoint skeleton (SAVEPOINT, RELEASE, ROLLBACK TO) on the transaction's connection. */
  protected abstract command(text: string): void | Promise<void>;
  /** A handle on the same connection, one savepoint deeper. */
  protected abstract deeper(): TransactionHandle;
  /** Whether the transaction itself is still open after an error inside a savepoint (SQLite ends it on some). */
  protected abstract survives(): boolean;
  /** Whether the connection under the handle is open. */
  protected abstract connected(): boolean;

  /** The transaction ended: every later statement on this handle is refused. */
  end(): void {
    this.#ended = true;
  }

  get open(): boolean {
    return !this.#ended && this.connected();
  }

  /** Throws when the transaction ended: a statement must not run, and commit, outside it. */
  protected assertOpen(): void {
    if (this.#ended) throw new Error('a transaction handle was used after its transaction ended');
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const outcome = await this.savepoint(fn);
    if (!outcome.ok) throw outcome.err;
    return outcome.value;
  }

  async tryTransaction<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>> {
    return { ok: true, value: await this.transaction(fn) };
  }

  snapshot<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return fn(this);
  }

  onRollback(hook: () => void): void {
    this.assertOpen();
    this.rollbackHooks.add(hook);
  }

  /**
   * `fn` in a savepoint: released when it succeeds, rolled back (and its error returned) when it
   * fails. A handle's savepoints run one after another, so each depth needs one name. An error
   * that ended the whole transaction, or a rollback that cannot run (a lost connection), is thrown.
   */
  async savepoint<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>> {
    this.assertOpen();
    const name = `sp${this.depth + 1}`;
    await this.command(`SAVEPOINT ${name}`);
    const inner = this.deeper();
    try {
      const value = await fn(inner);
      await this.command(`RELEASE SAVEPOINT ${name}`);
      inner.rollbackHooks.handTo(this.rollbackHooks);
      return { ok: true, value };
    } catch (err) {
      inner.rollbackHooks.run();
      if (!this.survives()) throw err;
      try {
        await this.command(`ROLLBACK TO SAVEPOINT ${name}`);
        await this.command(`RELEASE SAVEPOINT ${name}`);
      } catch {
        throw err;
      }
      return { ok: false, err };
    } finally {
      inner.end();
    }
  }
}

/** The statements that open and end one transaction, by engine. */
export interface TransactionSteps {
  /** Opens it; absent when the caller opened it already. */
  begin?(): void | Promise<void>;
  commit(): void | Promise<void>;
  /** Rolls back what is still open after a failure; a rollback that cannot run is the engine's to handle. */
  rollback(): void | Promise<void>;
}

/**
 * A transaction on the connection `tx` owns: begun, `fn` run, committed when it succeeds (its time
 * from BEGIN to COMMIT told to `onCommit`, when given), rolled back when anything throws, and the
 * handle ended either way; a rollback runs the handle's rollback hooks.
 */
export async function runTransaction<T>(
  tx: TransactionHandle,
  fn: (tx: Db) => Promise<T>,
  steps: TransactionSteps,
  onCommit?: (seconds: number) => void,
): Promise<T> {
  try {
    await steps.begin?.();
    const began = onCommit && performance.now();
    const value = await fn(tx);
    await steps.commit();
    if (began) onCommit((performance.now() - began) / 1000);
    return value;
  } catch (err) {
    await steps.rollback();
    tx.rollbackHooks.run();
    throw err;
  } finally {
    tx.end();
  }
}
