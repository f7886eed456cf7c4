/**
 * The API's group commit on PostgreSQL: writes that arrive together share one transaction (one
 * commit), each in a savepoint of its own, so one that fails rolls back alone; every write is
 * committed, and readable from any other connection, before its promise settles.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../src/db/group-commit.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const opened: PostgresDatabase[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function probeDatabase(): Promise<PostgresDatabase> {
  const url = await freshPostgresDatabase();
  const db = new PostgresDatabase(url, { connectionString: url, max: 4 });
  opened.push(db);
  await db.exec('CREATE TABLE probe (n INTEGER NOT NULL)');
  return db;
}

describe('group commit on PostgreSQL', () => {
  it('commits writes that arrive together in one transaction, each answered only once it is committed', async () => {
    const db = await probeDatabase();
    const batches: number[] = [];
    const commit = createGroupCommit(db, 20, 5000, (writes) => batches.push(writes));
    const writes = Array.from({ length: 10 }, (_, n) =>
      commit(async (tx) => {
        await tx.run('INSERT INTO probe (n) VALUES (?)', [n]);
        return await tx.value<string>('SELECT pg_current_xact_id()::text');
      }).then(async (xact) => {
        // Answered: another connection of the pool sees it.
        const seen = await db.value<number>('SELECT COUNT(*)::int FROM probe WHERE n = ?', [n]);
        return { xact, seen };
      }),
    );
    const results = await Promise.all(writes);
    expect(batches).toEqual([10]);
    expect(new Set(results.map((r) => r.xact)).size).toBe(1);
    expect(results.map((r) => r.seen)).toEqual(Array(10).fill(1));
  });

  it('rolls back a write that fails alone: the others of its batch commit', async () => {
    const db = await probeDatabase();
    const commit = createGroupCommit(db, 20);
    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3].map((n) =>
        commit(async (tx) => {
          await tx.run('INSERT INTO probe (n) VALUES (?)', [n]);
          if (n === 2) await tx.run('INSERT INTO probe (n) VALUES (NULL)');
          return n;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await db.column<number>('SELECT n FROM probe ORDER BY n')).toEqual([0, 1, 3]);
  });
});
