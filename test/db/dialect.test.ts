/**
 * The named differences between the engines (src/db/dialect.ts): each gives each engine its own
 * text, composes with the `sql` tag, and its SQLite text runs on SQLite. The PostgreSQL texts run
 * in the store's suites on PostgreSQL.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinSql, sql } from '../../src/db/database.js';
import {
  belowWatermark,
  commitOrderTo,
  idsFirst,
  idsInCommitOrder,
  indexedBy,
  inCommitOrder,
  jsonRecords,
  jsonTextAt,
  NOT_INDEXED,
  NOT_INDEXED_ON_BOTH,
  positionParams,
  ROW_ORDER,
  rowOrderStart,
} from '../../src/db/dialect.js';
import { openSqlite, tempDir } from '../support/context.js';

const open = () => openSqlite(join(tempDir('borderd-dialect-'), 'd.db'));

describe('the dialect fragments', () => {
  it('read a JSON array of objects as rows, a missing key as NULL', async () => {
    const db = open();
    const records = jsonRecords('r', [
      ['id', 'text'],
      ['n', 'bigint'],
    ]);
    // On PostgreSQL through an array, which the planner takes for a few rows, as JSON_LIST's elements.
    expect(records.postgres).toBe(
      '(SELECT o.* FROM unnest(ARRAY(SELECT jsonb_array_elements(?::jsonb))) AS a(v), jsonb_to_record(a.v) AS o("id" text, "n" bigint)) AS r',
    );
    const rows = await db.all(sql`SELECT r.id, r.n FROM ${records} ORDER BY r.id`, [
      JSON.stringify([{ id: 'b' }, { id: 'a', n: 2 ** 40 }]),
    ]);
    expect(rows).toEqual([
      { id: 'a', n: 2 ** 40 },
      { id: 'b', n: null },
    ]);
  });

  it("read each object of a JSON array in SQLite's binary form, every value as it was, of its type", async () => {
    const db = open();
    const records = jsonRecords('r', [
      ['k', 'integer'],
      ['v', 'text'],
    ]);
    // jsonb_each: `->>` reads each object without turning it into text and parsing it again.
    expect(records.sqlite).toMatch(/ FROM jsonb_each\(\?\)\) AS r$/);
    const values = [
      null,
      0,
      -1,
      2 ** 53 - 1,
      1.5,
      '',
      'a"b\\c\nd\te',
      'ünï €😀',
      '{"json":"text"}',
      { nested: [1, 'x'] },
      true,
      'x'.repeat(5000),
    ];
    const rows = await db.all<{ v: unknown; t: string }>(sql`SELECT r.v, typeof(r.v) AS t FROM ${records} ORDER BY r.k`, [
      JSON.stringify(values.map((v, k) => ({ k, v }))),
    ]);
    expect(rows).toEqual(
      values.map((v) => {
        if (v === null) return { v: null, t: 'null' };
        if (typeof v === 'boolean') return { v: v ? 1 : 0, t: 'integer' };
        if (typeof v === 'number') return { v, t: Number.isInteger(v) ? 'integer' : 'real' };
        return typeof v === 'string' ? { v, t: 'text' } : { v: JSON.stringify(v), t: 'text' };
      }),
    );
  });

  it("read a JSON column's text at a path", async () => {
    const db = open();
    const at = jsonTextAt('b', 'data', 'id');
    expect(at.postgres).toBe("b::json -> 'data' ->> 'id'");
    expect(await db.value(sql`SELECT ${at} FROM (SELECT ? AS b) t`, ['{"data":{"id":7}}'])).toBe('7');
    expect(await db.value(sql`SELECT ${at} FROM (SELECT ? AS b) t`, ['{"data":{}}'])).toBeNull();
  });

  it('compare a place in commit order with a position given as parameters: the id alone on SQLite, (tx, id) on PostgreSQL', async () => {
    const db = open();
    await db.exec("CREATE TABLE e (tx_id INTEGER NOT NULL DEFAULT 0, id TEXT PRIMARY KEY); INSERT INTO e (id) VALUES ('a'), ('b'), ('c')");
    const after = sql`SELECT id FROM e WHERE ${commitOrderTo('tx_id', 'id', '>')} ${belowWatermark('tx_id')} ORDER BY ${inCommitOrder('tx_id', 'id', ' DESC')}`;
    expect(after).toEqual({
      sqlite: 'SELECT id FROM e WHERE id > ?  ORDER BY id DESC',
      postgres:
        'SELECT id FROM e WHERE (tx_id, id) > (?, ?) AND tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint ORDER BY tx_id DESC, id DESC',
    });
    expect(idsInCommitOrder(db)).toBe(true);
    expect(positionParams(db, { tx: 0, id: 'a' })).toEqual(['a']);
    expect(positionParams({ dialect: 'postgres' } as typeof db, { tx: 5, id: 'a' })).toEqual([5, 'a']);
    expect(await db.column(after, positionParams(db, { tx: 0, id: 'a' }))).toEqual(['c', 'b']);
  });

  it("give SQLite its planner hints and PostgreSQL none, and read a subquery's ids first", async () => {
    const db = open();
    await db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, a TEXT); CREATE INDEX t_a ON t (a); INSERT INTO t VALUES ('x', '1'), ('y', '2')");
    const hinted = sql`SELECT ${ROW_ORDER} AS position, id FROM t ${indexedBy('t_a')} WHERE a >= ? AND ${ROW_ORDER} > ? ORDER BY a`;
    expect(hinted).toEqual({
      sqlite: 'SELECT rowid AS position, id FROM t INDEXED BY t_a WHERE a >= ? AND rowid > ? ORDER BY a',
      postgres: 'SELECT id AS position, id FROM t  WHERE a >= ? AND id > ? ORDER BY a',
    });
    expect(await db.column(sql`SELECT id FROM (${hinted}) ORDER BY id`, ['1', rowOrderStart(db)])).toEqual(['x', 'y']);
    const picked = sql`SELECT c.a FROM ${idsFirst("SELECT 'y' AS id", 't', 'c')} c.a IS NOT NULL`;
    expect(picked).toEqual({
      sqlite: "SELECT c.a FROM (SELECT 'y' AS id) k CROSS JOIN t c WHERE c.id = k.id AND c.a IS NOT NULL",
      postgres: "SELECT c.a FROM t c WHERE c.id IN (SELECT 'y' AS id) AND c.a IS NOT NULL",
    });
    expect(await db.column(picked)).toEqual(['2']);
  });

  it('join conditions of which some differ between the engines', () => {
    expect(joinSql(['a = ?', sql`${NOT_INDEXED}b = ?`, 'c = ?'], ' AND ')).toEqual({
      sqlite: 'a = ? AND +b = ? AND c = ?',
      postgres: 'a = ? AND b = ? AND c = ?',
    });
    // A text column kept out of both planners' reach: on PostgreSQL an expression no index holds.
    expect(sql`${NOT_INDEXED_ON_BOTH}state = 'pending'`).toEqual({ sqlite: "+state = 'pending'", postgres: "''||state = 'pending'" });
    expect(joinSql(['a = ?'], ' AND ')).toBe('a = ?');
  });
});
