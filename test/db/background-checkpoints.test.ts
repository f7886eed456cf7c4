import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBackgroundCheckpoints, type BackgroundCheckpoints } from '../../src/db/background-checkpoints.js';
import { openConnection, type Connection } from '../../src/db/sqlite-connection.js';
import { tempDir } from '../support/context.js';
import { ROOT } from '../support/process.js';

// The worker runs compiled code (`npm test` builds first).
const workerScript = new URL(`file://${join(ROOT, 'dist/src/db/checkpoint-worker.js')}`);

const opened: Array<{ db: Connection; checkpoints: BackgroundCheckpoints }> = [];
afterEach(async () => {
  for (const { db, checkpoints } of opened.splice(0)) {
    await checkpoints.close();
    db.close();
  }
});

function setUp(script = workerScript) {
  const path = join(tempDir('borderd-checkpoints-'), 'c.db');
  // A raw connection, as the receiver's capture log holds.
  const db = openConnection(path, { synchronous: 'normal' });
  db.exec('CREATE TABLE blobs (b BLOB NOT NULL)');
  const failures: Error[] = [];
  const checkpoints = startBackgroundCheckpoints(db, {
    dbPath: path,
    synchronous: 'normal',
    intervalMs: 50,
    workerScript: script,
    onFailure: (err) => failures.push(err),
  });
  opened.push({ db, checkpoints });
  return { db, path, checkpoints, failures };
}

const autocheckpoint = (db: Connection) => db.pragma('wal_autocheckpoint', { simple: true });

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('background WAL checkpoints', () => {
  it('the writer stops checkpointing in its commits, and the worker copies the WAL into the database file', async () => {
    const { db, path, checkpoints, failures } = setUp();
    expect(await checkpoints.ready).toBe(true);
    expect(autocheckpoint(db)).toBe(0);
    const before = statSync(path).size;
    // About 2,000 pages, twice the writer's automatic threshold, in separate commits.
    const insert = db.prepare('INSERT INTO blobs (b) VALUES (zeroblob(4000))');
    for (let i = 0; i < 2000; i++) insert.run();
    await until(() => statSync(path).size > before + 4_000_000);
    expect(db.prepare('SELECT COUNT(*) AS n FROM blobs').get()).toEqual({ n: 2000 });
    expect(failures).toEqual([]);
  });

  it('close stops the worker and gives the writer its automatic checkpoint back', async () => {
    const { db, checkpoints } = setUp();
    await checkpoints.ready;
    await checkpoints.close();
    await checkpoints.close();
    expect(autocheckpoint(db)).toBe(1000);
  });

  it('a worker that cannot start leaves the automatic checkpoint on and says why', async () => {
    const { db, checkpoints, failures } = setUp(new URL(`file://${join(ROOT, 'dist/src/db/no-such-worker.js')}`));
    expect(await checkpoints.ready).toBe(false);
    expect(autocheckpoint(db)).toBe(1000);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toMatch(/no-such-worker|Cannot find/);
  });

  it('a worker that fails later hands checkpoints back to the writer', async () => {
    const { db, checkpoints, failures } = setUp(new URL('./fixtures/failing-checkpoint-worker.mjs', import.meta.url));
    expect(await checkpoints.ready).toBe(true);
    expect(autocheckpoint(db)).toBe(0);
    await until(() => failures.length > 0);
    await new Promise((r) => setTimeout(r, 100)); // the 'exit' that follows the 'error' is not a second failure
    expect(failures.map((e) => e.message)).toEqual(['disk I/O error']);
    expect(autocheckpoint(db)).toBe(1000);
  });
});
