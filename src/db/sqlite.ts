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
import type { Statement } from 'better-sqlite3';
import { isSqliteBusy, type Connection } from './sqlite-connection.js';
import type { Database, Db, Dialect, Outcome, Sql, SqlParams, TransactionOptions } from './database.js';
import { runTransaction, TransactionHandle, type TransactionSteps } from './transaction-handle.js';

const textOf = (sql: Sql): string => (typeof sql === 'string' ? sql : sql.sqlite);

/** The statements of one connection, with or without a transaction open. */
class Statements {
  /**
   * `beforeWrite` is called before a statement that may write runs outside a transaction (where it
   * commits alone), with nothing else to run in between.
   */
  constructor(
    readonly conn: Connection,
    private readonly beforeWrite: () => void = () => {},
  ) {}

  #prepare(sql: Sql): Statement {
    const stmt = this.conn.prepare(textOf(sql));
    if (!stmt.readonly && !this.conn.inTransaction) this.beforeWrite();
    return stmt;
  }

  all<T>(sql: Sql, params: SqlParams): T[] {
    return this.#prepare(sql).all(...params) as T[];
  }
  get<T>(sql: Sql, params: SqlParams): T | undefined {
    return this.#prepare(sql).get(...params) as T | undefined;
  }
  value<T>(sql: Sql, params: SqlParams): T | undefined {
    return this.#prepare(sql)
      .pluck()
      .get(...params) as T | undefined;
  }
  column<T>(sql: Sql, params: SqlParams): T[] {
    return this.#prepare(sql)
      .pluck()
      .all(...params) as T[];
  }
  run(sql: Sql, params: SqlParams): number {
    return this.#prepare(sql).run(...params).changes;
  }
  exec(sql: string): void {
    if (!this.conn.inTransaction) this.beforeWrite();
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
class SqliteTransaction extends TransactionHandle {
  readonly dialect: Dialect = 'sqlite';

  constructor(
    private readonly statements: Statements,
    depth: number,
  ) {
    super(depth);
  }

  protected override assertOpen(): void {
    super.assertOpen();
    // SQLite itself ended it (ON CONFLICT ROLLBACK, a full disk): what follows must not commit alone.
    if (!this.statements.conn.inTransaction) throw new Error('the transaction was rolled back by SQLite; nothing more runs in it');
  }

  #use(): Statements {
    this.assertOpen();
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

  protected command(text: string): void {
    this.statements.conn.prepare(text).run();
  }
  protected deeper(): SqliteTransaction {
    return new SqliteTransaction(this.statements, this.depth + 1);
  }
  /** Some errors (disk full, I/O, ON CONFLICT ROLLBACK) end the whole transaction, not the savepoint. */
  protected survives(): boolean {
    return this.statements.conn.inTransaction;
  }
  protected connected(): boolean {
    return this.statements.conn.open;
  }
}

export interface SqliteDatabaseOptions {
  /** The busy timeout the connection was opened with: put back after a write that would not wait. */
  busyTimeoutMs: number;
  /** Commits are fsynced (synchronous FULL): a bookkeeping transaction turns it down until the next durable commit. */
  fsynced: boolean;
}

export class SqliteDatabase implements Database {
  readonly dialect: Dialect = 'sqlite';
  readonly inTransaction = false;
  readonly #statements: Statements;
  /** Settles once the last caller in line has handed the connection on. */
  #tail: Promise<void> = Promise.resolve();
  /** Callers holding the connection or waiting in line for it; none: a statement runs at once. */
  #inLine = 0;
  /**
   * The connection is at synchronous NORMAL although its commits are fsynced: the last write
   * transaction was bookkeeping. FULL is put back only before something that commits durably (a
   * durable transaction, a write outside a transaction), not after each bookkeeping transaction,
   * so a run of them (a drain's claims and result batches) sets no pragma between them. A pragma
   * costs more than its text suggests: SQLite compiles it again at every run.
   */
  #relaxed = false;
  onCommit: ((seconds: number) => void) | undefined;

  constructor(
    readonly conn: Connection,
    private readonly opts: SqliteDatabaseOptions,
  ) {
    this.#statements = new Statements(conn, () => this.#fsyncCommits());
  }

  get location(): string {
    return this.conn.name;
  }

  get open(): boolean {
    return this.conn.open;
  }

  /** Runs a statement now, or in its turn after the transactions (and statements) in line before it. */
  #now<T>(fn: () => T): Promise<T> {
    if (this.#inLine === 0) return settle(fn);
    return this.#take().then((handOn) => {
      try {
        return fn();
      } finally {
        handOn();
      }
    });
  }

  /**
   * Takes the connection after everyone already in line, first come first served; resolves with
   * the function that hands it to the next. Waiting longer than `timeoutMs` fails.
   */
  async #take(timeoutMs: number | undefined = this.opts.busyTimeoutMs): Promise<() => void> {
    const before = this.#tail;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The next in line waits for everyone before this caller too, even if this one stops waiting.
    this.#tail = before.then(() => released);
    this.#inLine++;
    let handedOn = false;
    const handOn = (): void => {
      if (handedOn) return;
      handedOn = true;
      this.#inLine--;
      release();
    };
    if (this.#inLine === 1) return handOn;
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      before.then(() => false),
      new Promise<boolean>((resolve) => timeoutMs !== undefined && (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (waited) {
      handOn();
      throw new Error(
        'a statement waited the whole busy timeout for an open transaction to end: a transaction body that uses the database instead of its transaction handle waits for itself',
      );
    }
    return handOn;
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

  /** Outside a transaction each statement has committed alone: there is nothing to roll back. */
  onRollback(): void {}

  /** BEGIN (deferred): a read lock only, so another process's writer is not held up, on a read-only connection too. */
  async snapshot<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const handOn = await this.#take();
    try {
      // A snapshot's body is meant to read, but what it might write commits durably.
      this.#fsyncCommits();
      return await runTransaction(new SqliteTransaction(this.#statements, 0), fn, {
        begin: () => void this.conn.prepare('BEGIN').run(),
        commit: () => this.#endIfOpen('COMMIT'),
        rollback: () => this.#endIfOpen('ROLLBACK'),
      });
    } finally {
      handOn();
    }
  }

  /** Ends the transaction with `statement`, unless SQLite ended it already. */
  #endIfOpen(statement: 'COMMIT' | 'ROLLBACK'): void {
    if (this.conn.inTransaction) this.conn.prepare(statement).run();
  }

  /** How a write transaction ends: COMMIT (which fails when SQLite ended it meanwhile), or ROLLBACK of what is still open. */
  readonly #writeEnd: TransactionSteps = {
    commit: () => void this.conn.prepare('COMMIT').run(),
    rollback: () => this.#endIfOpen('ROLLBACK'),
  };

  /**
   * BEGIN IMMEDIATE takes the write lock up front, so the body's reads and writes see one state and
   * no other process writes between them. `wait`: in SQLite's busy wait for another process's lock;
   * otherwise `{ ok: false }` at once when it is held.
   */
  async #transaction<T>(fn: (tx: Db) => Promise<T>, opts: TransactionOptions, wait: boolean): Promise<Outcome<T>> {
    const handOn = await this.#take();
    try {
      if (opts.durability === 'bookkeeping') this.#relax();
      else this.#fsyncCommits();
      const begun = this.#begin(wait);
      if (!begun.ok) return begun;
      return { ok: true, value: await runTransaction(new SqliteTransaction(this.#statements, 0), fn, this.#writeEnd, this.onCommit) };
    } finally {
      handOn();
    }
  }

  /** Commits stop being fsynced (bookkeeping): synchronous NORMAL, unless the connection is there already. */
  #relax(): void {
    if (this.#relaxed || !this.opts.fsynced) return;
    this.conn.prepare('PRAGMA synchronous = NORMAL').run();
    this.#relaxed = true;
  }

  /** Commits are fsynced again (synchronous FULL) if a bookkeeping transaction left them relaxed. */
  #fsyncCommits(): void {
    if (!this.#relaxed) return;
    this.conn.prepare('PRAGMA synchronous = FULL').run();
    this.#relaxed = false;
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

  /** Nothing tells of another process's writes to a SQLite file; listeners poll. */
  listen(): Promise<() => Promise<void>> {
    return Promise.resolve(() => Promise.resolve());
  }

  async close(): Promise<void> {
    const handOn = await this.#take(undefined);
    try {
      if (this.conn.open) this.conn.close();
    } finally {
      handOn();
    }
  }
}
