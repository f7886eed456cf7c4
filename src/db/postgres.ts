/**
 * The Database interface over a PostgreSQL connection pool (node-postgres): the engine for more
 * than one host. Statements outside a transaction take any pooled connection; a transaction holds
 * one from BEGIN to COMMIT. `?` placeholders become `$1…$n`, BIGINT columns (instants in
 * milliseconds, counts) arrive as numbers, and a connection lost while idle is dropped from the
 * pool, so a database that restarts is reconnected to by the next statement.
 *
 * @module db/postgres
 */
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DatabaseOpenError,
  isTransientConflict,
  type Database,
  type Db,
  type Dialect,
  type Outcome,
  type Sql,
  type SqlParams,
  type TransactionOptions,
} from './database.js';
import { runTransaction, TransactionHandle } from './transaction-handle.js';

/** Why a connection could not be made or used, in words, by the error's code. */
const CONNECT_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (is PostgreSQL running, on that host and port?)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host cannot be reached',
  '28P01': 'the password was refused',
  '28000': 'the login was refused',
  '3D000': 'the database does not exist',
  '42501': 'the user lacks a privilege borderd needs',
};

/**
 * A failure to connect (or to log in) as the one line an operator acts on, naming the setting; any
 * other error is undefined, and goes on as it is.
 */
export function connectFailure(err: unknown, location: string): Error | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = String(e?.code ?? '');
  let why = CONNECT_FAILURES[code];
  if (why === undefined && /timeout exceeded when trying to connect|Connection terminated/i.test(String(e?.message)))
    why = 'no answer in time';
  if (why === undefined && /SSL|certificate|self.signed/i.test(String(e?.message))) why = `TLS failed: ${String(e?.message)}`;
  // Settings the server refuses at login come from the URL's options= (borderd's statements set none).
  if (why === undefined && /configuration parameter|command-line argument|invalid value for parameter/i.test(String(e?.message)))
    why = `the server refused the options= parameter of the URL: ${String(e?.message)}`;
  if (why === undefined) return undefined;
  return new DatabaseOpenError(`cannot use the database ${location}: ${why} (database.url)`);
}

/**
 * A statement as node-postgres sends it: `?` placeholders as PostgreSQL's `$n` (outside quoted
 * text), and a name, so each connection parses and plans each of borderd's statements once and
 * then only binds and runs it (the texts are fixed in src/store; lists travel as one JSON
 * parameter, so their number stays that of the texts). Each text is translated once. A statement
 * planned per run (dialect.ts plannedPerRun) has no name: it goes as the unnamed statement, parsed
 * and planned with its parameters each time.
 */
interface Statement {
  text: string;
  name: string | undefined;
}
const statements = new Map<string, Statement>();

function statementOf(sql: Sql): Statement {
  const text = typeof sql === 'string' ? sql : sql.postgres;
  const perRun = typeof sql !== 'string' && sql.plannedPerRun === true;
  const key = perRun ? `per run: ${text}` : text;
  let statement = statements.get(key);
  if (statement === undefined) {
    statement = { text: translate(text), name: perRun ? undefined : `borderd_${statements.size.toString(36)}` };
    statements.set(key, statement);
  }
  return statement;
}

function translate(text: string): string {
  let n = 0;
  let out = '';
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '?' ? `$${++n}` : ch;
  }
  return out;
}

/** Values as node-postgres sends them: booleans become the 0/1 the schema stores. */
const paramsOf = (params: SqlParams): unknown[] => params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));

/** BIGINT (instants in ms, counts) as numbers: every such value borderd stores is far below 2^53. */
const types = new pg.TypeOverrides();
types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/**
 * What node-postgres's Query does on the wire, as far as OpenedQuery takes part in it
 * (pg/lib/query.js): internals, not its documented interface, so package.json holds pg to one minor
 * version, and test/postgres/round-trips.test.ts fails when a new one changes what goes out.
 */
interface WireConnection {
  parse(m: { text: string; name?: string }): void;
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  bind(m: object): void;
  execute(m: object): void;
}
interface WireQuery {
  text: string;
  name?: string;
  prepare(connection: WireConnection): void;
  handleCommandComplete(msg: unknown, connection: WireConnection): void;
}
const WireQuery = pg.Query as unknown as new (
  config: pg.QueryConfig & { rowMode?: 'array'; callback: (err: Error | undefined, res: pg.QueryResult) => void },
) => WireQuery;

/**
 * A statement sent behind the statements that open its transaction (`BEGIN` and its settings), in
 * the same round trip: each opener goes as Parse, Bind and Execute of the unnamed statement, ahead
 * of the statement's own messages and the one Sync that ends them all, so the server runs them in
 * order and answers once. Their results (a command tag each) are not the statement's and are
 * dropped; an error in any of them fails the statement, which leaves the transaction to roll back.
 * The statement's own Parse, when its connection has not parsed it yet, goes first: node-postgres
 * takes the first ParseComplete of a query as its statement's, and a statement that fails to parse
 * must not be taken as parsed.
 */
class OpenedQuery extends WireQuery {
  #openersLeft: number;

  constructor(
    readonly openers: readonly string[],
    config: ConstructorParameters<typeof WireQuery>[0],
  ) {
    super(config);
    this.#openersLeft = openers.length;
  }

  override prepare(connection: WireConnection): void {
    const name = this.name;
    if (name !== undefined && connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined) {
      connection.parse({ text: this.text, name });
      connection.submittedNamedStatements[name] = this.text;
    }
    for (const text of this.openers) {
      connection.parse({ text });
      connection.bind({});
      connection.execute({});
    }
    super.prepare(connection);
  }

  override handleCommandComplete(msg: unknown, connection: WireConnection): void {
    if (this.#openersLeft > 0) this.#openersLeft--;
    else super.handleCommandComplete(msg, connection);
  }
}

/**
 * Where a statement goes: the pool, or a transaction's connection. A transaction's BEGIN (and its
 * settings) is not sent on its own: it waits in `opening` and goes with the transaction's first
 * statement, in that statement's round trip. Nothing runs between them, so the transaction is the
 * same as if BEGIN had gone first: at READ COMMITTED each statement takes its own snapshot, and the
 * transaction id is taken at its first write either way. (A REPEATABLE READ snapshot is opened on
 * its own, PostgresDatabase.snapshot.)
 */
interface Target {
  client: pg.PoolClient | pg.Pool;
  /** The statements that open the transaction, while none of them is sent. */
  opening?: string[] | undefined;
}

function send(target: Target, config: pg.QueryConfig & { rowMode?: 'array' }): Promise<pg.QueryResult> {
  const opening = target.opening;
  if (opening === undefined) return target.client.query(config);
  target.opening = undefined;
  return new Promise((resolve, reject) => {
    const query = new OpenedQuery(opening, { ...config, callback: (err, res) => (err ? reject(err) : resolve(res)) });
    // A Submittable: node-postgres answers through its callback, and returns it, not a promise.
    void target.client.query(query as unknown as pg.QueryConfig);
  });
}

/** A script without parameters (a simple query, which may hold several statements), behind its transaction's openers. */
async function sendScript(target: Target, text: string): Promise<void> {
  const opening = target.opening;
  target.opening = undefined;
  await target.client.query(opening === undefined ? text : [...opening, text].join('; '));
}

async function all<T>(target: Target, sql: Sql, params: SqlParams): Promise<T[]> {
  return (await send(target, { ...statementOf(sql), values: paramsOf(params) })).rows as T[];
}

async function firstValue<T>(target: Target, sql: Sql, params: SqlParams): Promise<T[]> {
  const res = await send(target, { ...statementOf(sql), values: paramsOf(params), rowMode: 'array' });
  return (res.rows as unknown[][]).map((r) => r[0] as T);
}

/** A channel name as NOTIFY and LISTEN take it, bare. */
function channelName(channel: string): string {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  return channel;
}

/**
 * The notifications a transaction sends at its commit: sent in the COMMIT's own round trip
 * (`NOTIFY …; COMMIT`), not one statement each inside the transaction.
 */
class Notices {
  readonly #channels: string[] = [];

  add(channel: string): void {
    this.#channels.push(channelName(channel));
  }

  /** One of `channel`'s, for a savepoint that rolled back after adding it. */
  drop(channel: string): void {
    const i = this.#channels.lastIndexOf(channel);
    if (i >= 0) this.#channels.splice(i, 1);
  }

  /** Whether any notification is to be sent. */
  any(): boolean {
    return this.#channels.length > 0;
  }

  /** The COMMIT, after a NOTIFY per channel (PostgreSQL sends a channel's same notice once per transaction anyway). */
  commit(): string {
    return [...new Set(this.#channels)].map((c) => `NOTIFY ${c}; `).join('') + 'COMMIT';
  }
}

class PostgresTransaction extends TransactionHandle {
  readonly dialect: Dialect = 'postgres';

  constructor(
    private readonly target: Target,
    depth: number,
    private readonly notices: Notices,
  ) {
    super(depth);
  }

  notifyOnCommit(channel: string): void {
    this.assertOpen();
    this.notices.add(channel);
    this.onRollback(() => this.notices.drop(channel));
  }

  #use(): Target {
    this.assertOpen();
    return this.target;
  }

  all<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return all<T>(this.#use(), sql, params);
  }
  async get<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return (await all<T>(this.#use(), sql, params))[0];
  }
  async value<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return (await firstValue<T>(this.#use(), sql, params))[0];
  }
  column<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return firstValue<T>(this.#use(), sql, params);
  }
  async run(sql: Sql, params: SqlParams = []): Promise<number> {
    return (await send(this.#use(), { ...statementOf(sql), values: paramsOf(params) })).rowCount ?? 0;
  }
  async exec(sql: string): Promise<void> {
    await sendScript(this.#use(), sql);
  }

  protected async command(text: string): Promise<void> {
    await sendScript(this.target, text);
  }
  protected deeper(): PostgresTransaction {
    return new PostgresTransaction(this.target, this.depth + 1, this.notices);
  }
  /**
   * A statement error leaves the transaction usable once rolled back to the savepoint; a lost
   * connection does not, and then the rollback itself fails.
   */
  protected survives(): boolean {
    return true;
  }
  protected connected(): boolean {
    return true;
  }
}

export interface PostgresOptions extends pg.PoolConfig {
  /** Called with an error of an idle pooled connection (the server restarted, a network cut): the pool drops that connection. */
  onIdleError?: (err: Error) => void;
}

/**
 * Runs again of a transaction that lost a deadlock or a serialization failure, each after a short
 * wait of CONFLICT_WAIT_MS times its number, up to twice that at random: the transaction it
 * collided with holds its locks until it ends, and the random part keeps two victims from meeting
 * again in step. A conflict that outlasts them reaches the caller (the API's 503 database_conflict).
 */
const CONFLICT_RERUNS = 3;
const CONFLICT_WAIT_MS = 10;

/** A lost LISTEN connection is opened again after this long, doubling up to five seconds while the server stays away. */
const RELISTEN_FIRST_MS = 250;
const RELISTEN_MAX_MS = 5_000;

export class PostgresDatabase implements Database {
  readonly dialect: Dialect = 'postgres';
  readonly inTransaction = false;
  readonly pool: pg.Pool;
  #open = true;
  onCommit: ((seconds: number) => void) | undefined;
  /** How many times a transaction ended by a transient conflict is run again (CONFLICT_RERUNS; a test sets 0). */
  conflictReruns = CONFLICT_RERUNS;

  constructor(
    readonly location: string,
    { onIdleError, ...config }: PostgresOptions,
  ) {
    this.pool = new pg.Pool({ ...config, types });
    this.#config = config;
    // Without a listener, an idle connection's error would end the process.
    this.pool.on('error', (err) => onIdleError?.(err));
  }

  readonly #config: pg.PoolConfig;

  async listen(channels: readonly string[], onNotify: (channel: string) => void): Promise<() => Promise<void>> {
    for (const channel of channels) channelName(channel);
    let client: pg.Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    let delayMs = RELISTEN_FIRST_MS;
    const again = () => {
      if (stopped || retry) return;
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, delayMs);
      retry.unref();
      delayMs = Math.min(delayMs * 2, RELISTEN_MAX_MS);
    };
    const connect = async () => {
      const c = new pg.Client({ ...this.#config, types });
      let lost = false;
      const onLost = () => {
        if (lost) return;
        lost = true;
        if (client === c) client = undefined;
        again();
      };
      c.on('notification', (m) => onNotify(m.channel));
      c.on('error', onLost);
      c.on('end', onLost);
      try {
        await c.connect();
        for (const channel of channels) await c.query(`LISTEN ${channel}`);
      } catch {
        onLost();
        c.end().catch(() => undefined);
        return;
      }
      if (stopped) return void c.end().catch(() => undefined);
      client = c;
      delayMs = RELISTEN_FIRST_MS;
      for (const channel of channels) onNotify(channel);
    };
    await connect();
    return async () => {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    };
  }

  get open(): boolean {
    return this.#open;
  }

  all<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return all<T>({ client: this.pool }, sql, params);
  }
  async get<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return (await all<T>({ client: this.pool }, sql, params))[0];
  }
  async value<T>(sql: Sql, params: SqlParams = []): Promise<T | undefined> {
    return (await firstValue<T>({ client: this.pool }, sql, params))[0];
  }
  column<T>(sql: Sql, params: SqlParams = []): Promise<T[]> {
    return firstValue<T>({ client: this.pool }, sql, params);
  }
  async run(sql: Sql, params: SqlParams = []): Promise<number> {
    return (await this.pool.query({ ...statementOf(sql), values: paramsOf(params) })).rowCount ?? 0;
  }
  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  /**
   * A transaction that PostgreSQL ended to break a deadlock or for a serialization failure rolled
   * back whole, its rollback hooks run: it is run again from BEGIN, up to conflictReruns times,
   * unless the caller says its body must not run twice (`rerunOnConflict: false`).
   */
  async transaction<T>(fn: (tx: Db) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    // Bookkeeping may be lost to a crash of the server: it commits without waiting for its WAL flush.
    const opening = opts.durability === 'bookkeeping' ? ['BEGIN', 'SET LOCAL synchronous_commit TO off'] : ['BEGIN'];
    const reruns = opts.rerunOnConflict === false ? 0 : this.conflictReruns;
    for (let run = 1; ; run++) {
      try {
        return await this.#run(fn, opening, true);
      } catch (err) {
        if (!isTransientConflict(err) || run > reruns) throw err;
        await sleep(CONFLICT_WAIT_MS * run * (1 + Math.random()));
      }
    }
  }

  async #run<T>(fn: (tx: Db) => Promise<T>, opening: string[], writes = false, openAtOnce = false): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // A checked-out connection that dies between statements emits 'error', which with no listener
    // would end the process; the statement then in flight (or the next) fails on its own.
    const onLost = (err: Error) => (broken = err);
    client.on('error', onLost);
    const notices = new Notices();
    // Opened with its first statement (Target): BEGIN costs no round trip of its own.
    const target: Target = { client, opening };
    try {
      if (openAtOnce) {
        target.opening = undefined;
        await client.query(opening.join('; '));
      }
      const steps = {
        commit: async () => {
          // A transaction that sent no statement has nothing to commit but its notifications.
          if (target.opening === undefined || notices.any()) await sendScript(target, notices.commit());
        },
        rollback: async () => {
          if (target.opening !== undefined) return;
          try {
            await client.query('ROLLBACK');
          } catch (rollback) {
            // The connection is gone: it must not go back to the pool.
            broken = rollback as Error;
          }
        },
      };
      return await runTransaction(new PostgresTransaction(target, 0, notices), fn, steps, writes ? this.onCommit : undefined);
    } finally {
      client.removeListener('error', onLost);
      client.release(broken);
    }
  }

  async tryTransaction<T>(fn: (tx: Db) => Promise<T>, opts?: TransactionOptions): Promise<Outcome<T>> {
    return { ok: true, value: await this.transaction(fn, opts) };
  }

  savepoint<T>(fn: (tx: Db) => Promise<T>): Promise<Outcome<T>> {
    return this.transaction((tx) => tx.savepoint(fn));
  }

  /** Outside a transaction each statement has committed alone: there is nothing to roll back. */
  onRollback(): void {}

  /** Outside a transaction there is nothing to wait for: the notification goes at once. */
  async notifyOnCommit(channel: string): Promise<void> {
    await this.pool.query(`NOTIFY ${channelName(channel)}`);
  }

  /** REPEATABLE READ: every statement of `fn` sees the snapshot taken by its first. */
  snapshot<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    // Opened on its own: a statement's Parse, sent ahead of the openers (OpenedQuery), would take
    // the first snapshot, before the isolation level is set.
    return this.#run(fn, ['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'], false, true);
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.pool.end();
  }
}
