/**
 * One `borderd receive` per capture log. Two receivers sharing one would share its dedupe: one
 * forwards an event, the other then answers borderd "duplicate" and never forwards it to its own app.
 *
 * The lock is an exclusive SQLite transaction held open on a small file beside the log
 * (`<capture-db>-lock`): an OS lock, so it goes with the process however the process ends (kill -9
 * included), with no pid to check or reuse. A clean stop removes the file.
 *
 * @module receiver/capture-lock
 */
import { statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirectories } from '../db/directories.js';
import { DatabaseOpenError } from '../db/database.js';

type Connection = InstanceType<typeof Database>;

/**
 * Closed connections stay reachable until the process exits: a better-sqlite3 object left for an
 * idle-time collection can abort the process on Node 24 (see db/sqlite-connection.ts).
 */
const kept: Connection[] = [];

export class CaptureLogInUse extends Error {
  readonly code = 'capture_log_in_use';
}

export interface CaptureLock {
  release(): void;
}

const inode = (path: string): number | undefined => {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
};

/**
 * Takes the lock of the capture log at `path`, or throws CaptureLogInUse at once (no wait). The
 * file's inode is compared before and after locking: a lock taken on a file that a stopping
 * receiver removed meanwhile is not the lock of the path, and is taken again.
 */
export function lockCaptureLog(path: string): CaptureLock {
  if (path === ':memory:') return { release: () => undefined };
  const lockPath = `${path}-lock`;
  for (;;) {
    const before = inode(lockPath);
    let db: Connection;
    try {
      makeDirectories(dirname(path), 0o700);
      db = new Database(lockPath);
    } catch (err) {
      // Said as the capture log's own failure to open would be: the path given is what to fix.
      throw new DatabaseOpenError(`cannot open database ${path}: ${(err as Error).message} (--capture-db)`, { cause: err });
    }
    kept.push(db);
    try {
      db.exec('PRAGMA busy_timeout = 0');
      db.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY'))
        throw new CaptureLogInUse(
          `another borderd receive is using the capture log ${path}; stop it, or give this one its own --capture-db PATH`,
        );
      throw err;
    }
    const after = inode(lockPath);
    if (after !== undefined && (before === undefined || before === after)) {
      return {
        release() {
          if (!db.open) return;
          // Removed while still held: a receiver starting now either sees the lock or a new file.
          unlinkSync(lockPath);
          db.close();
        },
      };
    }
    db.close();
  }
}
