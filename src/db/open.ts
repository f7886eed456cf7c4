import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;

export interface OpenOptions {
  busyTimeoutMs?: number;
  readonly?: boolean;
}

/**
 * Opens the SQLite file with the pragmas borderd relies on: WAL so the daemon and CLI commands can
 * read while one writes, foreign keys enforced, a busy timeout so a CLI write waits for the daemon's
 * transaction instead of failing, and synchronous=NORMAL (safe under WAL: a power cut can lose the
 * last commits but never corrupts; process crashes lose nothing).
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: opts.readonly ?? false });
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  return db;
}
