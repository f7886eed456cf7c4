/**
 * Every difference between SQLite's SQL and PostgreSQL's that borderd's statements meet, each
 * declared once as a named fragment (or, where the difference is what a caller does rather than
 * what it writes, a named capability). Store modules compose their statements from these with the
 * `sql` tag of db/database.ts and never spell an engine's own text: eslint.config.js refuses an
 * engine literal, a test of `dialect` and a planner hint written by hand in src/store/.
 *
 * @module db/dialect
 */
import type { Fragment, Queryable, Sql } from './database.js';

const fragment = (sqlite: string, postgres: string): Fragment => ({ sqlite, postgres });

/**
 * The values of a JSON array of strings passed as one parameter, for `IN (${JSON_LIST})`. On
 * PostgreSQL the elements go through an array: the planner takes json_array_elements_text for 100
 * rows whatever the list holds, and against a table of a few thousand rows it would then hash the
 * list and scan the whole table; an array's unnest it takes for 10, and probes the index per id.
 */
export const JSON_LIST = fragment('SELECT value FROM json_each(?)', 'SELECT unnest(ARRAY(SELECT json_array_elements_text(?::json)))');

/** A column of jsonRecords: the key it is read from in each object, and its type on PostgreSQL. */
export type JsonColumn = readonly [key: string, type: 'text' | 'integer' | 'bigint'];

/**
 * The rows of a JSON array of objects passed as one parameter, as a table named `alias` with one
 * column per key (`alias."key"`): what a batch writes from one parameter instead of one statement
 * per row. SQLite's jsonb_each hands each object to `->>` in its binary form; json_each would turn
 * it back into text, which `->>` then parses again: twice the CPU per row of a batch. On
 * PostgreSQL the objects go through an array, as JSON_LIST's elements do: json_to_recordset is
 * taken for 100 rows, against which a join to a table's rows by their ids is planned as a hash of
 * whatever else the statement's other conditions reach; an array's unnest is taken for 10, and
 * each row is probed by its id.
 */
export const jsonRecords = (alias: string, columns: readonly JsonColumn[]): Fragment =>
  fragment(
    `(SELECT ${columns.map(([key]) => `value ->> '${key}' AS "${key}"`).join(', ')} FROM jsonb_each(?)) AS ${alias}`,
    `(SELECT o.* FROM unnest(ARRAY(SELECT jsonb_array_elements(?::jsonb))) AS a(v), jsonb_to_record(a.v) AS o(${columns
      .map(([key, type]) => `"${key}" ${type}`)
      .join(', ')})) AS ${alias}`,
  );

/** The text at `path` (object keys) of a JSON column holding an object, or NULL. */
export const jsonTextAt = (column: string, ...path: [string, ...string[]]): Fragment => {
  const steps = path.map((key, i) => `${i === path.length - 1 ? '->>' : '->'} '${key}'`).join(' ');
  return fragment(`CAST(${column} ${steps} AS TEXT)`, `${column}::json ${steps}`);
};

/** The larger of two values (SQLite's two-argument MAX). */
export const GREATEST = fragment('MAX', 'GREATEST');

/** The smaller of two values (SQLite's two-argument MIN). */
export const LEAST = fragment('MIN', 'LEAST');

/**
 * SQLite's planner hints: `INDEXED BY` an index, and a unary `+` that keeps a column's index out of
 * a plan. SQLite keeps no statistics here, so a few statements pin their plan; PostgreSQL plans from
 * its own statistics and takes neither.
 */
export const indexedBy = (index: string): Fragment => fragment(`INDEXED BY ${index}`, '');
export const NOT_INDEXED = fragment('+', '');

/**
 * NOT_INDEXED on both engines, for a text column: PostgreSQL's `''||` makes the column an expression
 * no index holds. For the state check of rows a statement finds by their ids (a claim's picked
 * rows, a result batch's): PostgreSQL keeps no statistics of a delivery's state (a queue's last
 * ANALYZE would make a backlog one row), so it takes `state = 'pending'` and the batch's owner for
 * a row or two, and would reach the batch by a walk of every pending row of the queue, hashed
 * against the batch, instead of one probe of the primary key per row.
 */
export const NOT_INDEXED_ON_BOTH = fragment('+', "''||");

/**
 * What orders a table's rows within each of its index entries, for a walk that pages along one
 * index: SQLite's rowid, PostgreSQL's primary key (id).
 */
export const ROW_ORDER = fragment('rowid', 'id');

/** A ROW_ORDER value before every row: rowids are positive, and ids sort after the empty string. */
export const rowOrderStart = (db: Queryable): number | string => (db.dialect === 'sqlite' ? 0 : '');

/**
 * The rows of `table` (as `alias`) whose id the subquery `ids` gives, the subquery read first: a
 * FROM and the start of a WHERE, to be followed by more conditions. SQLite's CROSS JOIN fixes the
 * order (without it, the planner may walk the table's rows and test each against the subquery);
 * PostgreSQL plans the IN from its statistics.
 */
export const idsFirst = (ids: string | Fragment, table: string, alias: string): Fragment => {
  const text = (engine: 'sqlite' | 'postgres') => (typeof ids === 'string' ? ids : ids[engine]);
  return fragment(
    `(${text('sqlite')}) k CROSS JOIN ${table} ${alias} WHERE ${alias}.id = k.id AND`,
    `${table} ${alias} WHERE ${alias}.id IN (${text('postgres')}) AND`,
  );
};

/**
 * Locks the rows a SELECT picks, passing over rows another transaction holds instead of waiting
 * for them (PostgreSQL, where claims run side by side). SQLite runs one writer at a time: nothing
 * to lock.
 */
export const FOR_UPDATE_SKIP_LOCKED = fragment('', 'FOR UPDATE SKIP LOCKED');

/**
 * Locks the rows a SELECT picks as an UPDATE that changes no key would, waiting for a transaction
 * that holds them (PostgreSQL, to take rows in a chosen order before writing them). SQLite runs
 * one writer at a time: nothing to lock.
 */
export const FOR_NO_KEY_UPDATE = fragment('', 'FOR NO KEY UPDATE');

/**
 * The WHERE of an UPDATE of `table` that changes the rows whose id the CTE `cte` picked, to be
 * followed by more conditions: SQLite takes the ids as a list; PostgreSQL joins the CTE, which it
 * runs once.
 */
export const updatePicked = (table: string, cte: string): Fragment =>
  fragment(`WHERE ${table}.id IN (SELECT id FROM ${cte})`, `FROM ${cte} WHERE ${table}.id = ${cte}.id`);

/**
 * Commit order. A row written in an event's transaction has a place (tx, id): that transaction and
 * the event's id. SQLite runs write transactions one at a time, each numbering its events after the
 * newest one committed, so ids alone are commit order and tx is always 0. PostgreSQL commits
 * transactions side by side: ids alone are not commit order, and an event of a transaction still
 * running is not visible yet, so a read in commit order stops below the watermark.
 */
export const idsInCommitOrder = (db: Queryable): boolean => db.dialect === 'sqlite';

/** The oldest transaction still running: every row of an older one is committed (or rolled back) and visible. */
export const WATERMARK = fragment('1', 'pg_snapshot_xmin(pg_current_snapshot())::text::bigint');

/** `AND tx < WATERMARK` for the transaction column `tx`: on SQLite always true (every tx is 0, and committed), so nothing. */
export const belowWatermark = (tx: string): Fragment => fragment('', `AND ${tx} < ${WATERMARK.postgres}`);

/** 1 for a row a read in commit order holds back for now (`tx >= WATERMARK`), else 0; on SQLite always 0. */
export const heldBackFlag = (tx: string): Fragment => fragment('0', `CASE WHEN ${tx} >= ${WATERMARK.postgres} THEN 1 ELSE 0 END`);

/**
 * (x.tx, x.id) before (`<`) or after (`>`) (row.tx, row.id), two rows' columns, in a form each
 * engine's index seeks. SQLite bounds an index by a row value of constants only (one of another
 * row's columns would make it walk the index), and its tx is always 0: it compares ids within the
 * same tx.
 */
export const commitOrderOf = (x: readonly [tx: string, id: string], cmp: '<' | '>', row: readonly [tx: string, id: string]): Fragment =>
  fragment(`${x[0]} = ${row[0]} AND ${x[1]} ${cmp} ${row[1]}`, `(${x[0]}, ${x[1]}) ${cmp} (${row[0]}, ${row[1]})`);

/** (tx, id) compared to a position given as parameters, `positionParams` of it: on SQLite the id alone. */
export const commitOrderTo = (tx: string, id: string, cmp: '<' | '<=' | '>' | '>='): Fragment =>
  fragment(`${id} ${cmp} ?`, `(${tx}, ${id}) ${cmp} (?, ?)`);

/** The parameters of commitOrderTo for the position (tx, id). */
export const positionParams = (db: Queryable, position: { tx: number; id: string }): unknown[] =>
  idsInCommitOrder(db) ? [position.id] : [position.tx, position.id];

/** An ORDER BY in commit order, oldest first or (`DESC`) newest first. */
export const inCommitOrder = (tx: string, id: string, direction: '' | ' DESC' = ''): Fragment =>
  fragment(`${id}${direction}`, `${tx}${direction}, ${id}${direction}`);

/** `tx AS "tx"` of a position read in commit order: on SQLite every tx is 0. */
export const commitTxOf = (tx: string): Fragment => fragment('0', tx);

/** The texts of a JSON array of strings held in `column`, as rows of one column named `element` (a subquery's select). */
export const jsonElementsOf = (column: string): Fragment =>
  fragment(`SELECT value AS element FROM json_each(${column})`, `SELECT json_array_elements_text(${column}::json) AS element`);

/**
 * The statement planned with its parameters' values at every run. PostgreSQL plans a named
 * statement with them for its first five runs on a connection, then may keep a generic plan, made
 * for any values, when its estimate is no worse; a statement whose best index depends on those
 * values (a bound that reads, without them, as a narrow range of the wrong index) can then walk
 * every row that index holds in range at each run. Such a statement is sent unnamed, so each run is
 * parsed and planned anew, which costs the server a plan per run. SQLite plans each statement once
 * at prepare and reads no statistics for it, so it is the same statement there.
 */
export const plannedPerRun = (statement: Sql): Fragment => ({
  ...(typeof statement === 'string' ? fragment(statement, statement) : statement),
  plannedPerRun: true,
});

/**
 * Whether one statement can write to several tables (`WITH … AS (INSERT … RETURNING …) INSERT …`):
 * PostgreSQL's data-modifying WITH. SQLite has none; there each table is its own statement, which
 * costs nothing there (no round trip).
 */
export const writesTablesInOneStatement = (db: Queryable): boolean => db.dialect === 'postgres';
