import Database from 'better-sqlite3';
import { afterEach } from 'vitest';

/** Another connection to a database file holding its write lock, as another process (a CLI import, say) would. */
export interface WriteLockHolder {
  /** Ends the holder's transaction, writing nothing, and closes its connection; once is enough, more are harmless. */
  release(): void;
}

const holders = new Set<WriteLockHolder>();
// A test that fails while holding the lock must not leave it to the next one.
afterEach(() => {
  for (const holder of holders) holder.release();
});

/** Takes the write lock of the file at `path` (made, in WAL mode as borderd makes it, when there is none) until released. */
export function holdWriteLock(path: string): WriteLockHolder {
  const db = new Database(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('BEGIN IMMEDIATE');
  const holder: WriteLockHolder = {
    release: () => {
      holders.delete(holder);
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
  holders.add(holder);
  return holder;
}
