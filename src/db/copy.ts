/**
 * Copying a SQLite database into PostgreSQL (`borderd migrate --from-sqlite`). The copy is
 * all-or-nothing: every row goes into the target in one PostgreSQL transaction, read from one
 * snapshot of the source, so the target is either untouched or a whole copy of one moment of the
 * file, and a run that failed or was cut off is simply run again. Rows are copied table by table in
 * foreign-key order and in batches, each value as SQLite holds it (text as its exact characters,
 * integers as 64-bit values); the counts of every table are compared before the commit.
 *
 * @module db/copy
 */
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { DatabaseOpenError, isDatabaseUnavailable, type Database, type Db } from './database.js';
import { listMigrations, migrate, SchemaTooNewError } from './migrate.js';
import { connectFailure } from './postgres.js';
import { SqliteDatabase } from './sqlite.js';
import { openConnection, type Connection } from './sqlite-connection.js';

const { SqliteError } = BetterSqlite3;

/** The copy was refused or failed, and the target is as it was: the CLI prints this one line (exit code 1). */
export class CopyRefusedError extends Error {}

/** borderd's own bookkeeping of migrations: each engine keeps its own, so it is not copied. */
const NOT_COPIED = new Set(['schema_migrations']);

/** Rows read and inserted at a time, fewer for wide tables: PostgreSQL takes at most 65,535 parameters a statement. */
const BATCH_ROWS = 1000;
const MAX_PARAMETERS = 65_535;

/** The SQLite file being copied, opened read-only. */
export class SqliteSource {
  private constructor(
    readonly path: string,
    readonly conn: Connection,
    readonly db: SqliteDatabase,
    readonly schemaVersion: number,
  ) {}

  /**
   * Opens the file read-only (a daemon may be running on it) and checks that it is a borderd
   * database at this build's schema version. A file that cannot be used is a DatabaseOpenError
   * (exit code 2); one at an older version is refused with what to run first.
   */
  static async open(file: string): Promise<SqliteSource> {
    const path = resolve(file);
    // Checked before SQLite opens it: SQLite's own message for a missing file is "unable to open database file".
    let isFile: boolean;
    try {
      isFile = statSync(path).isFile();
      accessSync(path, constants.R_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
      throw new DatabaseOpenError(`cannot read --from-sqlite ${path}: ${why}`);
    }
    if (!isFile) throw new DatabaseOpenError(`cannot read --from-sqlite ${path}: not a file`);
    const conn = openConnection(path, { readonly: true, setting: '--from-sqlite' });
    const db = new SqliteDatabase(conn, { busyTimeoutMs: 5000, fsynced: false });
    try {
      let tables: string[];
      try {
        tables = await db.column<string>("SELECT name FROM sqlite_master WHERE type = 'table'");
      } catch (err) {
        throw new DatabaseOpenError(`--from-sqlite ${path} is not a SQLite database: ${(err as Error).message}`);
      }
      if (!tables.includes('schema_migrations') || !tables.includes('organizations')) {
        throw new DatabaseOpenError(`--from-sqlite ${path} is not a borderd database: it has no borderd tables`);
      }
      const version = (await db.value<number | null>('SELECT MAX(version) FROM schema_migrations')) ?? 0;
      const latest = listMigrations('sqlite').at(-1)?.version ?? 0;
      if (version > latest) {
        throw new SchemaTooNewError(
          `--from-sqlite ${path} is at schema version ${version}, newer than this borderd knows (${latest}): copy it with the release that migrated it`,
        );
      }
      if (version < latest) {
        throw new CopyRefusedError(
          `--from-sqlite ${path} is at schema version ${version} and this borderd copies version ${latest}: ` +
            `migrate it first with \`borderd migrate --db ${path}\` (this release), then copy it`,
        );
      }
      return new SqliteSource(path, conn, db, version);
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** One table as both databases hold it: the columns copied, in the target's order. */
interface TablePlan {
  name: string;
  columns: string[];
}

export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface CopyReport {
  tables: TableCount[];
  rows: number;
  /** Whether the target's planner statistics were refreshed after the commit (ANALYZE). */
  analyzed: boolean;
}

export interface CopyOptions {
  /** Rows copied so far of all tables, after each batch. */
  onProgress?: (done: number, total: number) => void;
  /** Rows per batch, for tests; at most what PostgreSQL's parameter limit allows. */
  batchRows?: number;
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * Copies the source into the PostgreSQL database `target`: migrates it to the current schema,
 * refuses it unless it holds no borderd rows, then copies every table in one transaction.
 */
export async function copySqliteToPostgres(source: SqliteSource, target: Database, opts: CopyOptions = {}): Promise<CopyReport> {
  if (target.dialect !== 'postgres') throw new Error('the copy goes into PostgreSQL');
  try {
    return await copy(source, target, opts);
  } catch (err) {
    // What either database refused, in one line; a login refused or a lost connection goes on as it is, for the CLI to say.
    const connecting = connectFailure(err, target.location);
    if (connecting) throw connecting;
    if (err instanceof pg.DatabaseError && !isDatabaseUnavailable(err)) {
      throw new CopyRefusedError(`the target database ${target.location} refused the copy: ${err.message}; nothing was committed`, {
        cause: err,
      });
    }
    if (err instanceof SqliteError) {
      throw new CopyRefusedError(`reading ${source.path} failed: ${err.message}; nothing was committed`, { cause: err });
    }
    throw err;
  }
}

async function copy(source: SqliteSource, target: Database, opts: CopyOptions): Promise<CopyReport> {
  // Text is sent and stored as UTF-8: a server that stores another encoding would change the bytes.
  const encoding = await target.value<string>('SHOW server_encoding');
  if (encoding !== 'UTF8') {
    throw new CopyRefusedError(
      `the target database ${target.location} stores text as ${encoding}: borderd needs a UTF8 database (CREATE DATABASE … ENCODING 'UTF8')`,
    );
  }
  await migrate(target);
  const plans = await planTables(source, target);
  const names = plans.map((p) => p.name);

  const tables = await target.transaction(async (tx) => {
    // Writers wait for the commit (a daemon started on the target too early), readers do not; a
    // second copy into the same target waits here, then finds it full.
    await tx.exec(`LOCK TABLE ${names.map(ident).join(', ')} IN EXCLUSIVE MODE`);
    await refuseUnlessEmpty(tx, plans, source, target.location);
    return source.db.snapshot(async (snap) => {
      const counts = new Map<string, number>();
      for (const p of plans) counts.set(p.name, Number(await snap.value<number>(`SELECT count(*) FROM ${ident(p.name)}`)));
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      let done = 0;
      opts.onProgress?.(0, total);
      for (const plan of plans) {
        await copyTable(source.conn, tx, plan, opts.batchRows, (n) => {
          done += n;
          opts.onProgress?.(done, total);
        });
      }
      const result: TableCount[] = [];
      for (const p of plans) {
        const copied = Number(await tx.value<number>(`SELECT count(*) FROM ${ident(p.name)}`));
        result.push({ table: p.name, source: counts.get(p.name)!, target: copied });
      }
      const differ = result.filter((r) => r.source !== r.target);
      if (differ.length > 0) {
        throw new CopyRefusedError(
          `the counts differ after the copy (${differ.map((r) => `${r.table}: ${r.source} in the source, ${r.target} in the target`).join('; ')}): nothing was committed`,
        );
      }
      return result;
    });
  });

  // A bulk load leaves the planner without statistics until autovacuum comes by: the daemon's first
  // queries would be planned blind. A failure here loses nothing, autovacuum analyzes later.
  let analyzed = true;
  try {
    await target.exec(`ANALYZE ${names.map(ident).join(', ')}`);
  } catch {
    analyzed = false;
  }
  return { tables, rows: tables.reduce((a, t) => a + t.target, 0), analyzed };
}

/**
 * The tables to copy in an order that puts every table after those its foreign keys refer to, each
 * with its columns. The source's tables (but the migrations' own) must all be in the target with the
 * same columns: both were made by this build's migrations, so a difference is a bug, said plainly.
 */
async function planTables(source: SqliteSource, target: Db): Promise<TablePlan[]> {
  const tables = (
    await source.db.column<string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
  )
    .filter((t) => !NOT_COPIED.has(t))
    .sort();
  const targetColumns = await target.all<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const plans = new Map<string, TablePlan>();
  for (const name of tables) {
    const columns = targetColumns.filter((c) => c.table_name === name).map((c) => c.column_name);
    const sourceColumns = await source.db.column<string>('SELECT name FROM pragma_table_info(?)', [name]);
    const same = columns.length === sourceColumns.length && sourceColumns.every((c) => columns.includes(c));
    if (!same) {
      throw new CopyRefusedError(
        `table ${name} differs between the source (${sourceColumns.join(', ')}) and the target (${columns.join(', ') || 'no such table'}): both should be at schema version ${source.schemaVersion}`,
      );
    }
    plans.set(name, { name, columns });
  }
  const references = await target.all<{ child: string; parent: string }>(
    `SELECT ch.relname AS child, pa.relname AS parent
       FROM pg_constraint c
       JOIN pg_class ch ON ch.oid = c.conrelid
       JOIN pg_class pa ON pa.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = ch.relnamespace
      WHERE c.contype = 'f' AND n.nspname = current_schema()`,
  );
  const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  for (const r of references) if (r.child !== r.parent && plans.has(r.parent)) parents.get(r.child)?.add(r.parent);
  // Kahn's order, by name among the tables ready at each step, so every run copies in the same order.
  const ordered: TablePlan[] = [];
  const left = new Set(tables);
  while (left.size > 0) {
    const ready = [...left].filter((t) => [...parents.get(t)!].every((p) => !left.has(p)));
    if (ready.length === 0) throw new Error(`the foreign keys of ${[...left].join(', ')} form a cycle`);
    for (const t of ready) {
      ordered.push(plans.get(t)!);
      left.delete(t);
    }
  }
  return ordered;
}

/**
 * Refuses a target that holds any borderd row: the copy would mix two databases. One that holds a
 * copy of this very source (made by an earlier run) is told apart by service_meta, which holds the
 * source's master-key canary, sealed with a random IV and so of this database alone.
 */
async function refuseUnlessEmpty(tx: Db, plans: TablePlan[], source: SqliteSource, location: string): Promise<void> {
  const full: string[] = [];
  for (const p of plans) if ((await tx.value(`SELECT 1 FROM ${ident(p.name)} LIMIT 1`)) !== undefined) full.push(p.name);
  if (full.length === 0) return;
  const meta = 'SELECT key, value FROM service_meta ORDER BY key';
  const mine = JSON.stringify(await source.db.all(meta));
  if (full.includes('service_meta') && JSON.stringify(await tx.all(meta)) === mine) {
    throw new CopyRefusedError(
      `the target database ${location} already holds a copy of ${source.path} (an earlier run finished): nothing was copied; to copy again, use an empty database`,
    );
  }
  throw new CopyRefusedError(
    `the target database ${location} already holds borderd data (rows in ${full.slice(0, 4).join(', ')}${full.length > 4 ? ', …' : ''}): ` +
      'borderd copies only into a database without any; create an empty one, or drop this one',
  );
}

/**
 * Copies one table in rowid order (every borderd table is a rowid table, and rowid order reads the
 * file front to back), a batch at a time. The next batch is read from SQLite while PostgreSQL
 * inserts the last one. Values are read raw, integers as BigInt so none beyond 2^53 is rounded.
 */
async function copyTable(
  conn: Connection,
  tx: Db,
  plan: TablePlan,
  batchRows: number | undefined,
  progress: (rows: number) => void,
): Promise<void> {
  const columns = plan.columns.map(ident).join(', ');
  const perBatch = Math.max(1, Math.min(batchRows ?? BATCH_ROWS, Math.floor(MAX_PARAMETERS / plan.columns.length)));
  const first = `SELECT rowid, ${columns} FROM ${ident(plan.name)} ORDER BY rowid LIMIT ?`;
  const next = `SELECT rowid, ${columns} FROM ${ident(plan.name)} WHERE rowid > ? ORDER BY rowid LIMIT ?`;
  const row = `(${plan.columns.map(() => '?').join(', ')})`;
  const insertOf = (n: number): string => `INSERT INTO ${ident(plan.name)} (${columns}) VALUES ${Array(n).fill(row).join(', ')}`;
  const read = (after: bigint | undefined): unknown[][] => {
    // The statement cache hands out shared statements: raw and safeIntegers are set for this use, as it expects.
    const stmt = conn.prepare(after === undefined ? first : next);
    stmt.raw(true).safeIntegers(true);
    return (after === undefined ? stmt.all(perBatch) : stmt.all(after, perBatch)) as unknown[][];
  };

  let rows = read(undefined);
  let inserting: Promise<void> | undefined;
  while (rows.length > 0) {
    const batch = rows;
    const last = batch.at(-1)![0] as bigint;
    const params = valuesOf(plan, batch);
    if (inserting) await inserting;
    inserting = tx.run(insertOf(batch.length), params).then(
      () => progress(batch.length),
      (err: unknown) => {
        if (!(err instanceof pg.DatabaseError) || isDatabaseUnavailable(err)) throw err;
        throw new CopyRefusedError(
          `copying table ${plan.name} failed (the batch from rowid ${String(batch[0]![0])}): ${err.message}; nothing was committed`,
          { cause: err },
        );
      },
    );
    // Handled here too: should the next read or check throw first, the insert's own failure is not left unhandled.
    inserting.catch(() => undefined);
    rows = batch.length < perBatch ? [] : read(last);
  }
  if (inserting) await inserting;
}

/**
 * The batch's values as parameters. PostgreSQL's text cannot hold a NUL character, and a BLOB in a
 * text column would be sent as bytea's hex: neither is copied as it is, so either stops the copy
 * naming the row, rather than changing a value on the way.
 */
function valuesOf(plan: TablePlan, batch: unknown[][]): unknown[] {
  const params: unknown[] = [];
  for (const r of batch) {
    for (let i = 1; i < r.length; i++) {
      const v = r[i];
      if ((typeof v === 'string' && v.includes('\u0000')) || Buffer.isBuffer(v)) {
        const what = typeof v === 'string' ? 'a NUL character, which PostgreSQL text cannot hold' : 'binary data (a BLOB)';
        throw new CopyRefusedError(
          `table ${plan.name}, rowid ${String(r[0])}: column ${plan.columns[i - 1]} holds ${what}; nothing was committed`,
        );
      }
      params.push(v);
    }
  }
  return params;
}
