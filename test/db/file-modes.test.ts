import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../src/db/sqlite-connection.js';
import { tempDir } from '../support/context.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('database files', () => {
  it("a new database, its -wal and -shm, and a directory made for it are the owner's alone, whatever the umask", () => {
    const old = process.umask(0o022);
    try {
      const dir = join(tempDir('borderd-modes-'), 'data');
      const path = join(dir, 'borderd.db');
      const db = openConnection(path);
      db.exec('CREATE TABLE t (x INTEGER)');
      db.prepare('INSERT INTO t (x) VALUES (1)').run();
      expect([mode(dir), mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual(['700', '600', '600', '600']);
      db.close();
    } finally {
      process.umask(old);
    }
  });

  it('an existing database keeps the mode its operator gave it', () => {
    const path = join(tempDir('borderd-modes-'), 'borderd.db');
    writeFileSync(path, '');
    chmodSync(path, 0o640);
    openConnection(path).close();
    expect(mode(path)).toBe('640');
  });

  // Linux lists every POSIX lock in /proc/locks, with the inode and the process holding it.
  it.skipIf(!existsSync('/proc/locks'))('opening an existing database again keeps the locks of the connections already open on it', () => {
    const path = join(tempDir('borderd-locks-'), 'capture.db');
    const held = () => {
      const inode = statSync(path).ino;
      return readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((l) => l.includes(` ${process.pid} `) && l.includes(`:${inode} `)).length;
    };
    const first = openConnection(path);
    first.exec('CREATE TABLE t (x)');
    first.prepare('SELECT * FROM t').get();
    const before = held();
    expect(before).toBeGreaterThan(0);
    // A second connection in the same process, as a checkpoint thread opens: closing a descriptor of
    // the file would drop every lock the process holds on it, and another process could then take
    // itself for the last connection and delete the WAL.
    const second = openConnection(path);
    second.prepare('SELECT * FROM t').get();
    expect(held()).toBe(before);
    second.close();
    first.close();
  });
});
