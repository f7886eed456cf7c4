/**
 * The outbox benchmark's statement counts on PostgreSQL (bench/statement-counts.ts): on a server
 * that preloads pg_stat_statements, the statements of one database between start and read, per
 * unit of work, with BEGIN and COMMIT counted and the counter's own statements left out; on a
 * server without it, nothing is counted. For a table named, its row updates per unit and the
 * share of them that were HOT.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresServer, type PostgresServer } from '../../bench/postgres-server.js';
import { describeCounts, statementCounter } from '../../bench/statement-counts.js';

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgresServer('statement-counts-secret', { statementStats: true });
}, 120_000);

afterAll(async () => {
  await server?.remove();
});

/** `units` transactions of two statements each on the database at `url`. */
async function work(url: string, units: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < units; i++) {
      await client.query('BEGIN');
      await client.query('SELECT $1::int AS n', [i]);
      await client.query('SELECT $1::text AS t', [String(i)]);
      await client.query('COMMIT');
    }
  } finally {
    await client.end();
  }
}

describe('statement counts', () => {
  it('counts what one database ran between start and read, per unit', { timeout: 60_000 }, async () => {
    const url = await server.createDatabase('counted');
    const other = await server.createDatabase('beside');
    // A table asked for that had no row updated: no line for it.
    const counter = await statementCounter(url, 'untouched');
    try {
      await work(url, 3);
      await counter.start();
      await work(url, 5);
      await work(other, 7);
      const counts = await counter.read(5);
      // BEGIN, two SELECTs and COMMIT per unit; the work before start and the other database's are not counted.
      expect(counts?.perUnit).toBe(4);
      expect(counts?.updates).toBeUndefined();
      expect(counts?.top.map((t) => t.perUnit)).toEqual([1, 1, 1, 1]);
      expect(counts?.top.map((t) => t.query).sort()).toEqual(['BEGIN', 'COMMIT', 'SELECT $1::int AS n', 'SELECT $1::text AS t']);
      expect(describeCounts('per unit', counts)).toMatch(/^per unit: 4\.00 statements per unit\n {2}1\.00 × /);
    } finally {
      await counter.close();
    }
  });

  it("reports a table's row updates per unit and the share of them that were HOT", { timeout: 60_000 }, async () => {
    const url = await server.createDatabase('updated');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const counter = await statementCounter(url, 'rows');
    try {
      // fillfactor 50: room on the page for every new version, so an update that changes no indexed column is HOT.
      await client.query('CREATE TABLE rows (id int PRIMARY KEY, indexed int, plain int) WITH (fillfactor = 50)');
      await client.query('CREATE INDEX rows_indexed ON rows (indexed)');
      await client.query('INSERT INTO rows SELECT i, i, i FROM generate_series(1, 4) i');
      await client.query('UPDATE rows SET plain = plain + 1'); // before start: not counted
      // This backend's counts reach the server's statistics at once, not within the second.
      await client.query('SELECT pg_stat_force_next_flush()');
      await counter.start();
      await client.query('UPDATE rows SET plain = plain + 1'); // 4 HOT
      await client.query('UPDATE rows SET plain = plain + 1'); // 4 HOT
      await client.query('UPDATE rows SET indexed = indexed + 10'); // 4 not HOT: an index gets new entries
      await client.query('SELECT pg_stat_force_next_flush()');
      const counts = await counter.read(2);
      expect(counts?.updates).toEqual({ table: 'rows', perUnit: 6, hotPct: (100 * 8) / 12 });
      expect(describeCounts('per unit', counts)).toContain('\n  rows: 6.00 row updates per unit, 67% of them HOT\n');
    } finally {
      await counter.close();
      await client.end();
    }
  });

  it('counts nothing where pg_stat_statements is not loaded', { timeout: 120_000 }, async () => {
    const plain = await startPostgresServer('statement-counts-plain');
    try {
      const counter = await statementCounter(plain.url);
      try {
        await counter.start();
        await work(plain.url, 2);
        const counts = await counter.read(2);
        expect(counts).toBeUndefined();
        expect(describeCounts('per unit', counts)).toBe('per unit: statements not counted (pg_stat_statements not loaded)');
      } finally {
        await counter.close();
      }
    } finally {
      await plain.remove();
    }
  });
});
