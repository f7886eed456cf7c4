/**
 * The database as the rest of borderd sees it, whichever engine holds it: statements with `?`
 * placeholders, transactions whose body is an async function of the transaction, savepoints inside
 * them. SQLite (src/db/sqlite.ts) is the embedded default; PostgreSQL (src/db/postgres.ts) serves
 * several nodes on one database. Only store/ writes SQL against this interface; everything else
 * opens transactions through it and passes the handle on.
 *
 * @module db/database
 */

export type Dialect = 'sqlite' | 'postgres';

/** SQL text, or one text per engine where their dialects differ. Placeholders are `?` on both. */
export type Sql = string | Fragment;

export type SqlParams = readonly unknown[];

/**
 * Text that differs between the engines: one text per engine (the named fragments of db/dialect.ts).
 * `plannedPerRun`: a whole statement PostgreSQL plans with its parameters at every run (dialect.ts).
 */
export type Fragment = { readonly sqlite: string; readonly postgres: string; readonly plannedPerRun?: true };

/**
 * One SQL text per engine, from a template whose `${fragment}`s differ between them (db/dialect.ts
 * names every such difference). Store modules build their statements with it once, at load.
 */
export function sql(strings: TemplateStringsArray, ...fragments: (string | Fragment)[]): Sql {
  let sqlite = strings[0]!;
  let postgres = strings[0]!;
  fragments.forEach((f, i) => {
    sqlite += (typeof f === 'string' ? f : f.sqlite) + strings[i + 1]!;
    postgres += (typeof f === 'string' ? f : f.postgres) + strings[i + 1]!;
  });
  return sqlite === postgres ? sqlite : { sqlite, postgres };
}

/**
 * A select list that reads each column under its field's name, from a table's fields constant
 * (`{ deliveryId: 'delivery_id' }`: `delivery_id AS "deliveryId"`), of the table as `alias` when given.
 */
export function columnsAs(fields: Readonly<Record<string, string>>, alias?: string): string {
  return Object.entries(fields)
    .map(([field, column]) => `${alias ? `${alias}.` : ''}${column} AS "${field}"`)
    .join(', ');
}

/** `parts` joined by `separator` (a WHERE of conditions, some of which differ between the engines). */
export function joinSql(parts: readonly Sql[], separator: string): Sql {
  return parts.reduce<Sql>((joined, part, i) => (i === 0 ? part : sql`${joined}${separator}${part}`), '');
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; err: unknown };

/** How much a transaction's commit must survive. */
export type Durability =
  /** Survives a power cut once the commit returns: everything acknowledged to a caller. */
  | 'durable'
  /**
   * borderd's own bookkeeping (delivery claims and results, decryption outcomes, retention): a power
   * cut may lose the last commits, which then happen again (a delivery is sent again, a notification
   * decrypted again). No fsync of its own (SQLite synchronous NORMAL, PostgreSQL synchronous_commit
   * off); the next durable commit makes it durable too.
   */
  | 'bookkeeping';

export interface TransactionOptions {
  durability?: Durability;
  /**
   * Whether the transaction may run `fn` again after a transient conflict (isTransientConflict):
   * PostgreSQL rolls the whole transaction back, so a body that writes only to the database runs
   * again as if the first run never happened. False for a body that does something outside the
   * database a second run would repeat; such a transaction throws the conflict at once.
   */
  rerunOnConflict?: boolean;
}

/** What statements run on: the database itself (each statement commits alone) or an open transaction. */
export interface Queryable {
  readonly dialect: Dialect;
  all<T>(sql: Sql, params?: SqlParams): Promise<T[]>;
  /** The first row, or undefined. */
  get<T>(sql: Sql, params?: SqlParams): Promise<T | undefined>;
  /** The first column of the first row, or undefined. */
  value<T>(sql: Sql, params?: SqlParams): Promise<T | undefined>;
  /** The first column of every row. */
  column<T>(sql: Sql, params?: SqlParams): Promise<T[]>;
  /** Runs a statement; resolves with the number of rows it changed. */
  run(sql: Sql, params?: SqlParams): Promise<number>;
  /** Runs a script of statements without parameters (a migration). */
  exec(sql: string): Promise<void>;
}

/**
 * The database, or a transaction of it: both open transactions. Inside a transaction, `transaction`
 * runs its body in a savepoint (all of it or none of it, the enclosing transaction goes on), as
 * better-sqlite3 and PostgreSQL nest them.
 */
export interface Db extends Queryable {
  /** Whether this handle is a transaction (its statements commit with it). */
  readonly inTransaction: boolean;
  /** Whether statements may still be sent: false once the database is closed, or the transaction ended. */
  readonly open: boolean;
  /**
   * Runs `fn` in a write transaction and commits it: all of `fn`'s writes, or none (it throws).
   * SQLite takes its write lock first and waits for another process's in its busy wait
   * (database.busyTimeoutMs), which holds the event loop: hot paths use `tryTransaction`.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * The same, only if it can start now: `{ ok: false }` without running `fn` when another process
   * holds SQLite's write lock, so a caller on the event loop tries again from a timer. PostgreSQL
   * has no such lock and always runs `fn`. Errors inside `fn` are thrown as usual.
   */
  tryTransaction<T>(fn: (tx: Db) => Promise<T>, opts?: TransactionOptions): Promise<Outcome<T>>;
  /**
   * Runs `fn` in a read-only transaction: every statement of it sees one state of the database (a
   * long read made of several statements, pages of a sample). Inside a transaction, that one.
   */
  snapshot<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: runs `fn` in a savepoint, so its error rolls back `fn` alone and is
   * returned for the caller to report. An error that ends the whole transaction (SQLite's disk full
   * or ON CONFLICT ROLLBACK, a lost PostgreSQL connection) is thrown instead: what the caller would
   * run next must not run outside it.
   */
  savepoint<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>>;
  /**
   * Inside a transaction: calls `hook` once if this transaction (or savepoint) rolls back, or any
   * transaction around it does, so work done outside the database on the strength of its writes (a
   * budget's tokens) is given back; never once the whole transaction has committed. Outside a
   * transaction nothing is called: each statement has committed alone.
   */
  onRollback(hook: () => void): void;
  /** PostgreSQL: notifyOnCommit (below); absent on SQLite, which has no notifications. */
  notifyOnCommit?(channel: string): void | Promise<void>;
}

/** The database a process opened: a Db, and what only its owner does. */
export interface Database extends Db {
  /** Where it is, for messages and logs: the SQLite file, or the PostgreSQL URL without its password. */
  readonly location: string;
  /** Resolves true when the database answers a trivial query now (readiness); never throws. */
  ping(): Promise<boolean>;
  /**
   * Calls `onNotify(channel)` for each notification on these channels from any process (PostgreSQL's
   * LISTEN, on a connection of its own that is opened again whenever it is lost; after each reconnect
   * every channel is called once, for what may have been missed). SQLite has no such thing: another
   * process's writes are found by the listeners' polls. Resolves a function that stops listening.
   */
  listen(channels: readonly string[], onNotify: (channel: string) => void): Promise<() => Promise<void>>;
  /** Lets statements in flight finish and closes every connection. */
  close(): Promise<void>;
  /** Told each committed write transaction's time from BEGIN to COMMIT, in seconds (the metrics set it). */
  onCommit: ((seconds: number) => void) | undefined;
}

/**
 * Inside a write transaction: tells every process listening on `channel` (Database.listen) once the
 * transaction commits; nothing if it rolls back. A no-op on SQLite.
 */
export async function notifyOnCommit(db: Db, channel: string): Promise<void> {
  await db.notifyOnCommit?.(channel);
}

/**
 * Runs `fn` with a context whose statements run in one transaction: the same context, with `db`
 * the transaction. A body names its parameter `ctx` too, so the database outside cannot be reached
 * from inside by mistake.
 */
export async function withTransaction<C extends { db: Db }, T>(ctx: C, fn: (ctx: C) => Promise<T>, opts?: TransactionOptions): Promise<T> {
  return ctx.db.transaction((tx) => fn({ ...ctx, db: tx }), opts);
}

/**
 * Inside a write transaction: waits until no other transaction holds `key`, then holds it until
 * this one ends. SQLite runs write transactions one at a time already, so it costs nothing there;
 * PostgreSQL runs them side by side, and a write that decides from what it just read (a count
 * under a limit, the newest event id, "is there a key yet") takes the key of what it decides on.
 */
export async function holdLock(db: Db, key: string): Promise<void> {
  if (db.dialect === 'postgres') await db.value('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

/**
 * Inside a write transaction: holds `key` until this transaction ends and resolves true, or resolves
 * false at once when another transaction holds it (PostgreSQL). SQLite runs write transactions one
 * at a time, so there it is always true.
 */
export async function tryHoldLock(db: Db, key: string): Promise<boolean> {
  if (db.dialect !== 'postgres') return true;
  return (await db.value<boolean>('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0))', [key])) === true;
}

/** Whether the database has this table (a database opened before migrations run may not). */
export async function hasTable(db: Queryable, name: string): Promise<boolean> {
  const sql = {
    sqlite: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
    postgres: 'SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?',
  };
  return (await db.value(sql, [name])) !== undefined;
}

/** The database cannot be opened or reached: the CLI prints this one line instead of a stack. */
export class DatabaseOpenError extends Error {}

const codeOf = (err: unknown): string => String((err as { code?: unknown } | null)?.code ?? '');

/**
 * Another writer held a lock longer than the wait allows (SQLite's busy timeout behind another
 * process's write, PostgreSQL's lock_not_available): nothing was written, and the same work can
 * succeed a moment later.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const code = codeOf(err);
  return code.startsWith('SQLITE_BUSY') || code === '55P03';
}

/**
 * PostgreSQL chose this transaction to end a deadlock (SQLSTATE 40P01) or could not serialize it
 * with another (40001): the whole transaction rolled back, nothing of it was written, and running it
 * again can succeed. An outermost transaction is run again a few times (PostgresDatabase.transaction)
 * before the conflict reaches its caller.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = codeOf(err);
  return code === '40P01' || code === '40001';
}

/**
 * The database or the disk under it is full: SQLite's SQLITE_FULL (a full disk, or max_page_count
 * reached), ENOSPC from the file system, PostgreSQL's disk_full (SQLSTATE 53100) or its "could not
 * extend file". Nothing of the statement was written; the same write succeeds once space returns.
 */
export function isStorageFull(err: unknown): boolean {
  const code = codeOf(err);
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === '53100') return true;
  return /could not extend file|No space left on device|database or disk is full/i.test(String((err as Error | null)?.message ?? ''));
}

/**
 * The database server could not be reached or dropped the connection (refused, reset, timed out,
 * shutting down, too many connections): the statement did not run, or its outcome is unknown and
 * its transaction rolled back. The pool reconnects on the next statement.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH'].includes(code)) return true;
  // SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, restart), and 53300 (too many connections).
  if (/^08...$/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300') return true;
  const message = String((err as Error | null)?.message ?? '');
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}
