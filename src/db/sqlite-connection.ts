/**
 * Opening a SQLite file with the pragmas borderd relies on, and the per-connection statement cache
 * that keeps SQLite's native objects away from the collector. The Database interface over such a
 * connection is src/db/sqlite.ts; the receiver's capture log uses a connection directly.
 *
 * @module db/sqlite-connection
 */
import Database from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';
import { makeDirectories } from './directories.js';
import { dirname } from 'node:path';
import { remember } from '../domain/bounded-map.js';
import { DatabaseOpenError } from './database.js';

/** A better-sqlite3 connection. */
export type Connection = Database.Database;

export type SynchronousLevel = 'full' | 'normal';

export interface OpenOptions {
  busyTimeoutMs?: number;
  readonly?: boolean;
  /** database.synchronous; FULL unless told otherwise. */
  synchronous?: SynchronousLevel;
  /** The setting that named the path, for the error when it cannot be opened: database.path unless told otherwise. */
  setting?: string;
}

/**
 * Opens the SQLite file with the pragmas borderd relies on: WAL so the daemon and CLI commands can
 * read while one writes, foreign keys enforced, a busy timeout so a CLI write waits for the daemon's
 * transaction instead of failing, and the durability of commits (database.synchronous):
 * - FULL (default): the WAL is fsynced at every commit, so a commit that returned survives a power
 *   loss or OS crash. borderd answers the card network's 200 (and API writes) after the commit, and
 *   the card network does not redeliver an acknowledged notification, so this is the default.
 * - NORMAL: fsync only at checkpoints; never corrupts, a process crash loses nothing, but a power
 *   loss or OS crash can roll back the last commits, acknowledged ones included. Faster writes.
 */
export function openConnection(path: string, opts: OpenOptions = {}): Connection {
  let db: Connection | undefined;
  try {
    if (path !== ':memory:') {
      // The file holds personal data and sealed secrets: a directory and a file borderd makes are its
      // owner's alone (SQLite gives the -wal and -shm files the database file's mode). Existing ones
      // keep the mode the operator gave them.
      makeDirectories(dirname(path), 0o700);
      if (!opts.readonly) createWithOwnerMode(path);
    }
    db = new Database(path, { readonly: opts.readonly ?? false });
    // exec(), not pragma(): pragma() prepares a statement and drops it (see "Native objects kept" at cacheStatements).
    const busyTimeoutMs = Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000));
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    if (!opts.readonly) {
      // The first statement that reads the file: a file that is not a database fails here.
      db.exec('PRAGMA journal_mode = WAL');
      db.exec(`PRAGMA synchronous = ${opts.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    }
    db.exec('PRAGMA foreign_keys = ON');
  } catch (err) {
    if (db) {
      db.close();
      connections.push(db);
    }
    throw new DatabaseOpenError(`cannot open database ${path}: ${(err as Error).message} (${opts.setting ?? 'database.path'})`, {
      cause: err,
    });
  }
  cacheStatements(db);
  connections.push(db);
  return db;
}

/**
 * Creates the database file, mode 0600, unless it exists. Never opens an existing one: closing any
 * descriptor of a file drops every POSIX lock this process holds on it, its open SQLite
 * connections' included (SQLite's own opens and closes avoid that; this one would not). A receiver
 * whose checkpoint thread opened its capture log again would lose its locks, and another process's
 * `sqlite3` could then take itself for the last connection and delete the WAL under it.
 */
function createWithOwnerMode(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  closeSync(fd);
}

/**
 * Every connection this process opened, closed ones included, kept reachable until it exits (see
 * "Native objects kept" at cacheStatements): a closed connection's object, and the statements its
 * cache holds, left for the collector could abort the process on Node 24. A process opens a handful.
 */
const connections: Connection[] = [];

/** better-sqlite3's error when the busy timeout ran out behind another connection's write lock (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(err: unknown): boolean {
  return /^SQLITE_BUSY/.test(String((err as { code?: unknown } | null)?.code));
}

/** Distinct SQL texts kept prepared per connection; the store's queries are a few hundred at most. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Makes `db.prepare(sql)` return the statement already compiled for that exact SQL text. Stores
 * write `db.prepare(sql).run(...)` at the point of use, which reads well; compiling the SQL on
 * every call would cost the daemon CPU on every request and send. Cached statements are shared, so
 * a hit resets the modes (pluck, expand, raw, safeIntegers) a previous caller may have switched on,
 * and a statement still busy in an unfinished `iterate()` is not handed out twice: that caller gets
 * a fresh one. The rule for stores: use what `prepare` returns at once, pass parameters per call,
 * never `.bind()` (binding is permanent on a shared statement). The cache is bounded (least
 * recently used out) because a few queries build their SQL from optional filters.
 *
 * Native objects kept: the cache matters for more than speed. better-sqlite3 12's statements and
 * iterators are node::ObjectWrap objects, and on Node 24.19 and later one that the garbage collector
 * finalizes while no JavaScript context is entered (an idle-time collection) aborts the whole
 * process (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook; fixed in
 * better-sqlite3 13, which needs Node 22). So borderd leaves none for the collector in normal
 * running: every statement is prepared once per connection and kept, pragmas are set with exec(),
 * nothing uses iterate(), and no query builds more SQL shapes than the cache holds (the benchmark
 * summary's ten optional filters make a few dozen, not one per combination), so nothing is evicted;
 * and a connection, once closed, stays reachable too (`connections` below).
 * A test (test/db/native-objects.test.ts) holds the rule.
 */
export function cacheStatements(db: Connection, size = STATEMENT_CACHE_SIZE): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  const cached = (sql: string): Database.Statement => {
    let stmt = cache.get(sql);
    if (stmt?.busy) return prepare(sql);
    if (stmt) {
      stmt.safeIntegers(false);
      if (stmt.reader) stmt.pluck(false).expand(false).raw(false);
    } else {
      stmt = prepare(sql);
    }
    remember(cache, sql, stmt, size);
    return stmt;
  };
  db.prepare = cached as Connection['prepare'];
}
