import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../src/db/database.js';
import { inlineReads, workerReads, type Reads, type ReadTable } from '../../src/db/read-pool.js';
import { BorderdError } from '../../src/domain/errors.js';
import { createLogger } from '../../src/logging/logger.js';
import { ROOT } from '../support/process.js';
import { openSqlite, tempDir } from '../support/context.js';

// The workers run compiled code (`npm test` builds first): the worker script from dist, the table from a fixture.
const workerScript = new URL(`file://${join(ROOT, 'dist/src/db/read-worker.js')}`);
const tableModule = new URL('./fixtures/read-table.mjs', import.meta.url);

interface TestTable extends ReadTable {
  names: (db: Db) => Promise<string[]>;
  namesTwice: (db: Db) => Promise<[string[], number]>;
  thread: () => Promise<number>;
  refuse: (db: Db, a: { field: string }) => Promise<never>;
  write: (db: Db) => Promise<number>;
  missingTable: (db: Db) => Promise<unknown>;
  waitFor: (db: Db, a: { flag: SharedArrayBuffer }) => Promise<string>;
  crash: () => Promise<never>;
}

const open: Reads<TestTable>[] = [];
afterEach(async () => {
  for (const reads of open.splice(0)) await reads.close();
});

async function setUp(size: number, dbPath?: string) {
  const path = dbPath ?? join(tempDir('borderd-reads-'), 'reads.db');
  const db: Database = openSqlite(path);
  await db.exec("CREATE TABLE people (name TEXT NOT NULL); INSERT INTO people (name) VALUES ('ada'), ('bob')");
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
  const log = createLogger({ level: 'info', pretty: 'never', destination });
  const reads = workerReads<TestTable>({ dbPath: path, busyTimeoutMs: 1000, size, tableModule, workerScript, log });
  open.push(reads);
  return { reads, db, lines };
}

const released = () => {
  const flag = new SharedArrayBuffer(4);
  return { flag, release: () => (Atomics.store(new Int32Array(flag), 0, 1), Atomics.notify(new Int32Array(flag), 0)) };
};

describe('read workers', () => {
  it('read on their own connection what the main connection committed, also after they started', async () => {
    const { reads, db } = await setUp(1);
    expect(await reads.run('names', undefined)).toEqual(['ada', 'bob']);
    await db.run("INSERT INTO people (name) VALUES ('cy')");
    expect(await reads.run('names', undefined)).toEqual(['ada', 'bob', 'cy']);
    expect(await reads.run('namesTwice', undefined)).toEqual([['ada', 'bob', 'cy'], 3]);
    expect(await reads.run('thread', undefined)).not.toBe(0); // 0 is the main thread
  });

  it('send concurrent reads to different workers', async () => {
    const { reads } = await setUp(2);
    const gate = released();
    const blocked = reads.run('waitFor', { flag: gate.flag });
    // The first worker is busy with the blocked read; this one goes to the other.
    const other = await reads.run('thread', undefined);
    gate.release();
    expect(await blocked).toBe('released');
    const first = await reads.run('thread', undefined);
    expect(new Set([other, first]).size).toBe(2);
  });

  it('throw a BorderdError raised in a worker as one, with its field errors and headers', async () => {
    const { reads } = await setUp(1);
    const err = await reads.run('refuse', { field: 'limit' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BorderdError);
    expect(err).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'one field failed',
      extra: { errors: [{ path: 'query.limit', message: 'is wrong' }], headers: { 'Retry-After': '1' } },
    });
  });

  it('keep SQLite error codes, and the connection is read-only', async () => {
    const { reads, db } = await setUp(1);
    await expect(reads.run('missingTable', undefined)).rejects.toMatchObject({
      code: 'SQLITE_ERROR',
      message: expect.stringMatching(/no such table: nowhere/),
    });
    await expect(reads.run('write', undefined)).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    expect(await db.value('SELECT count(*) FROM people')).toBe(2);
  });

  it('fail the read a dying worker had, log it, and serve the next read from a new worker', async () => {
    const { reads, lines } = await setUp(1);
    const before = await reads.run('thread', undefined);
    await expect(reads.run('crash', undefined)).rejects.toThrow(/read worker exited \(code 3\) during the read/);
    expect(await reads.run('names', undefined)).toEqual(['ada', 'bob']);
    expect(await reads.run('thread', undefined)).not.toBe(before);
    expect(lines.join('')).toMatch(/read worker exited; starting another/);
  });

  it('let a read in flight finish on close, and refuse reads after it', async () => {
    const { reads } = await setUp(1);
    const gate = released();
    const inFlight = reads.run('waitFor', { flag: gate.flag });
    const closed = reads.close();
    gate.release();
    await closed;
    expect(await inFlight).toBe('released');
    await expect(reads.run('names', undefined)).rejects.toThrow(/read workers are closed/);
  });

  it('say when a worker cannot open the database', async () => {
    const dir = tempDir('borderd-reads-');
    const log = createLogger({ level: 'silent', pretty: 'never' });
    const reads = workerReads<TestTable>({
      dbPath: join(dir, 'missing', 'none.db'),
      busyTimeoutMs: 100,
      size: 1,
      tableModule,
      workerScript,
      log,
    });
    await expect(reads.ready()).rejects.toThrow(/cannot open database/);
    await expect(reads.run('names', undefined)).rejects.toThrow(/cannot open database|exited/);
    await reads.close();
  });

  it('run inline on the given connection with no workers', async () => {
    const db = openSqlite(':memory:');
    await db.exec("CREATE TABLE people (name TEXT NOT NULL); INSERT INTO people (name) VALUES ('zed')");
    const table = { names: (d: Db) => d.column<string>('SELECT name FROM people') } satisfies ReadTable;
    const reads = inlineReads(db, table);
    expect(await reads.run('names', undefined)).toEqual(['zed']);
  });
});
