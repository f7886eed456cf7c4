/**
 * The Database interface over one better-sqlite3 connection: the embedded default. Statements run
 * synchronously and answer resolved promises, so the SQLite path pays a promise per statement and
 * nothing more.
 *
 * One connection serves the whole process, so a transaction owns it from BEGIN to COMMIT: while a
 * transaction's body is open (between two of its awaits other work of the process runs), statements
 * sent to the database itself wait for it to end instead of running inside it. A body must
 * therefore use its transaction handle, never the database it came from; a statement that waits
 * longer than the busy timeout for a transaction to end fails with an error saying so.
 *
 * @module db/sqlite
 */
import { isSqliteBusy, type Connection } from './sqlite-connection.js';
import type { Database, Db, Dialect, Outcome, Sql, SqlParams, TransactionOptions } from './database.js';

const textOf = (sql: Sql): string => (typeof sql === 'string' ? sql : sql.sqlite);

/** The statements of one connection, with or without a transaction open. */
class Statements {
  constructor(readonly conn: Connection) {}

  all<T>(sql: Sql, params: SqlParams): T[] {
    return this.conn.prepare(textOf(sql)).all(...params) as T[];
  }
  get<T>(sql: Sql, params: SqlParams): T | undefined {
    return this.conn.prepare(textOf(sql)).get(...params) as T | undefined;
  }
  value<T>(sql: Sql, params: SqlParams): T | undefined {
    return this.conn
      .prepare(textOf(sql))
      .pluck()
      .get(...params) as T | undefined;
  }
  column<T>(sql: Sql, params: SqlParams): T[] {
    return this.conn
      .prepare(textOf(sql))
      .pluck()
      .all(...params) as T[];
  }
  run(sql: Sql, params: SqlParams): number {
    return this.conn.prepare(textOf(sql)).run(...params).changes;
  }
  exec(sql: string): void {
    this.conn.exec(sql);
  }
}

const settle = <T>(fn: () => T): Promise<T> => {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
};

/** A transaction (or a savepoint of one): statements run at once, on the connection it owns. */
class SqliteTransaction implements Db {
  readonly dialect: Dialect = 'sqlite';
  readonly inTransaction = true;
  #ended = false;
  #savepoints = 0;

  constructor(private readonly statements: Statements) {}

  end(): void {
    this.#ended = true;
  }

  get open(): boolean {
    return !this.#ended && this.statements.conn.open;
  }

  #use(): Statements {
    if (this.#ended) throw new Error('a transaction handle was used after its transaction ended');
    return this.statements;
  }

  all<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return settle(() => this.#use().all<T>(sql, params));
  }
  get<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return settle(() => this.#use().get<T>(sql, params));
  }
  value<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return settle(() => this.#use().value<T>(sql, params));
  }
  column<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return settle(() => this.#use().column<T>(sql, params));
  }
  run(sql: Sql, params: SqlParams = []): Promise<number> {
    return settle(() => this.#use().run(sql, params));
  }
  exec(sql: string): Promise<void> {
    return settle(() => this.#use().exec(sql));
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const outcome = await this.#nested(fn);
    if (!outcome.ok) throw outcome.err;
    return outcome.value;
  }

  async tryTransaction<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>> {
    return { ok: true, value: await this.transaction(fn) };
  }

  snapshot<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return fn(this);
  }

  savepoint<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>> {
    return this.#nested(fn);
  }

  /** `fn` in a savepoint: released when it succeeds, rolled back (and its error returned) when it fails. */
  async #nested<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>> {
    const conn = this.#use().conn;
    const name = `sp${++this.#savepoints}`;
    conn.prepare(`SAVEPOINT ${name}`).run();
    const inner = new SqliteTransaction(this.statements);
    try {
      const value = await fn(inner);
      conn.prepare(`RELEASE ${name}`).run();
      return { ok: true, value };
    } catch (err) {
      // Some errors (disk full, I/O, ON CONFLICT ROLLBACK) end the whole transaction, not the savepoint.
      if (!conn.inTransaction) throw err;
      conn.prepare(`ROLLBACK TO ${name}`).run();
      conn.prepare(`RELEASE ${name}`).run();
      return { ok: false, err };
    } finally {
      inner.end();
    }
  }
}

export interface SqliteDatabaseOptions {
  /** The busy timeout the connection was opened with: put back after a write that would not wait. */
  busyTimeoutMs: number;
  /** Commits are fsynced (synchronous FULL): bookkeeping transactions turn it down for themselves. */
  fsynced: boolean;
}

export class SqliteDatabase implements Database {
  readonly dialect: Dialect = 'sqlite';
  readonly inTransaction = false;
  readonly #statements: Statements;
  /** Settles when the open transaction ends; unset while none is open. */
  #open: Promise<void> | undefined;

  constructor(
    readonly conn: Connection,
    private readonly opts: SqliteDatabaseOptions,
  ) {
    this.#statements = new Statements(conn);
  }

  get location(): string {
    return this.conn.name;
  }

  get open(): boolean {
    return this.conn.open;
  }

  /** Runs a statement now, or once the open transaction has ended. */
  #now<T>(fn: () => T): Promise<T> {
    if (this.#open === undefined) return settle(fn);
    return this.#afterTransaction().then(fn);
  }

  /** Waits until no transaction is open, at most the busy timeout. */
  async #afterTransaction(): Promise<void> {
    const deadline = performance.now() + this.opts.busyTimeoutMs;
    while (this.#open !== undefined) {
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new Error(
          'a statement waited the whole busy timeout for an open transaction to end: a transaction body that uses the database instead of its transaction handle waits for itself',
        );
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#open, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }

  all<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return this.#now(() => this.#statements.all<T>(sql, params));
  }
  get<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return this.#now(() => this.#statements.get<T>(sql, params));
  }
  value<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return this.#now(() => this.#statements.value<T>(sql, params));
  }
  column<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return this.#now(() => this.#statements.column<T>(sql, params));
  }
  run(sql: Sql, params: SqlParams = []): Promise<number> {
    return this.#now(() => this.#statements.run(sql, params));
  }
  exec(sql: string): Promise<void> {
    return this.#now(() => this.#statements.exec(sql));
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    const outcome = await this.#transaction(fn, opts, true);
    if (!outcome.ok) throw outcome.err;
    return outcome.value;
  }

  tryTransaction<T>(fn: (tx: Db) => Promise<T>, opts: TransactionOptions = {}): Promise<Outcome<T>> {
    return this.#transaction(fn, opts, false);
  }

  savepoint<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>> {
    return this.transaction((tx) => tx.savepoint(fn));
  }

  /** BEGIN (deferred): a read lock only, so another process's writer is not held up, on a read-only connection too. */
  async snapshot<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    if (this.#open !== undefined) await this.#afterTransaction();
    let end!: () => void;
    this.#open = new Promise<void>((resolve) => (end = resolve));
    const tx = new SqliteTransaction(this.#statements);
    try {
      this.conn.prepare('BEGIN').run();
      try {
        return await fn(tx);
      } finally {
        if (this.conn.inTransaction) this.conn.prepare('COMMIT').run();
      }
    } finally {
      tx.end();
      this.#open = undefined;
      end();
    }
  }

  /**
   * BEGIN IMMEDIATE takes the write lock up front, so the body's reads and writes see one state and
   * no other process writes between them. `wait`: in SQLite's busy wait for another process's lock;
   * otherwise `{ ok: false }` at once when it is held.
   */
  async #transaction<T>(fn: (tx: Db) => Promise<T>, opts: TransactionOptions, wait: boolean): Promise<Outcome<T>> {
    if (this.#open !== undefined) await this.#afterTransaction();
    let end!: () => void;
    this.#open = new Promise<void>((resolve) => (end = resolve));
    const conn = this.conn;
    const bookkeeping = opts.durability === 'bookkeeping' && this.opts.fsynced;
    const tx = new SqliteTransaction(this.#statements);
    try {
      if (bookkeeping) conn.prepare('PRAGMA synchronous = NORMAL').run();
      const begun = this.#begin(wait);
      if (!begun.ok) return begun;
      try {
        const value = await fn(tx);
        conn.prepare('COMMIT').run();
        return { ok: true, value };
      } catch (err) {
        if (conn.inTransaction) conn.prepare('ROLLBACK').run();
        throw err;
      }
    } finally {
      tx.end();
      if (bookkeeping) conn.prepare('PRAGMA synchronous = FULL').run();
      this.#open = undefined;
      end();
    }
  }

  #begin(wait: boolean): Outcome<undefined> {
    const begin = this.conn.prepare('BEGIN IMMEDIATE');
    if (wait) {
      begin.run();
      return { ok: true, value: undefined };
    }
    // get(), not run(): setting busy_timeout answers the new value as a row.
    this.conn.prepare('PRAGMA busy_timeout = 0').get();
    try {
      begin.run();
      return { ok: true, value: undefined };
    } catch (err) {
      if (isSqliteBusy(err)) return { ok: false, err };
      throw err;
    } finally {
      this.conn.prepare(`PRAGMA busy_timeout = ${this.opts.busyTimeoutMs}`).get();
    }
  }

  async ping(): Promise<boolean> {
    try {
      return this.conn.open && this.conn.prepare('SELECT 1').pluck().get() === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#open !== undefined) await this.#open;
    if (this.conn.open) this.conn.close();
  }
}
