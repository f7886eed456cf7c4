/**
 * What every CLI command shares: the common options, the config, one context per command, exit
 * codes, errors said in one line, and output as JSON or text.
 *
 * @module cli/context
 */
import { existsSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { Argv } from 'yargs';
import { ConfigError, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { AppContext, OpenContext } from '../context.js';
import { BorderdError } from '../domain/errors.js';
import { redactedUrl } from '../domain/url-redaction.js';
import { SchemaTooNewError } from '../db/migrate.js';
import { DatabaseOpenError, isDatabaseBusy, isDatabaseUnavailable, isTransientConflict } from '../db/database.js';
import { MasterKeyError } from '../security/master-key.js';

/** Options every command takes, as serve does. */
export interface CommonArgs {
  config?: string | undefined;
  db?: string | undefined;
  databaseUrl?: string | undefined;
  json?: boolean | undefined;
  print?: string | undefined;
}

export function withCommonOptions<T>(y: Argv<T>): Argv<T & CommonArgs> {
  return y
    .option('config', { type: 'string', describe: 'YAML config file (see config/)' })
    .option('db', { type: 'string', describe: 'SQLite database path (database.path)' })
    .option('database-url', {
      type: 'string',
      describe: 'PostgreSQL instead of SQLite: postgres://user:password@host:5432/db (database.url)',
    })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON document for scripts' })
    .option('print', {
      type: 'string',
      describe:
        'print one field of the result, bare (a list: one line per item), for the shell: ORG=$(borderd orgs create --name Acme --print id)',
    }) as Argv<T & CommonArgs>;
}

export function loadCliConfig(args: CommonArgs, flags: Record<string, unknown> = {}): Config {
  return loadConfig({ file: args.config, flags: { 'database.path': args.db, 'database.url': args.databaseUrl, ...flags } });
}

/** Exit codes: 0 ok, 1 the operation was refused or failed, 2 bad usage or bad config. */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A file named on the command line; one that cannot be read is bad usage (exit 2), said in one line. */
export function readCliFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new CliExit(2, `cannot read ${file}: ${(err as Error).message}`);
  }
}

/**
 * yargs's `coerce` for a whole-number option within bounds: "abc" (which yargs makes NaN), 1.5 or a
 * number out of range is bad usage (exit 2) before the command runs, not a value passed on to fail
 * later in SQLite or a socket call.
 */
export function wholeNumber(flag: string, min: number, max?: number): (value: unknown) => number {
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  return (value) => {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(n) || n < min || (max !== undefined && n > max)) {
      const given = givenText(flag) ?? (Number.isNaN(n) ? undefined : String(value));
      throw new CliExit(2, `--${flag} must be a whole number ${range}${given === undefined ? '' : `, not ${given}`}`);
    }
    return n;
  };
}

/**
 * What was typed after `--flag` (the last one given): yargs has made a word such as "abc" NaN by
 * the time a coerce sees it, and the message names what the user wrote.
 */
function givenText(flag: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let i = argv.length - 1; i >= 0; i--) {
    const arg = argv[i]!;
    if (arg.startsWith(`--${flag}=`)) return arg.slice(flag.length + 3);
    if (arg === `--${flag}` && i + 1 < argv.length) return argv[i + 1];
  }
  return undefined;
}

/** Why a listen failed, in words, by its error code. */
const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'the address is already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
};

/**
 * A listen that failed (the port taken, an address not of this machine, a host name that does not
 * resolve) as one line naming the address and the options that set it: bad usage or configuration,
 * exit 2. Anything else is returned as it is.
 */
export function listenFailure(err: unknown, host: string, port: number, options: string): unknown {
  const sys = err as NodeJS.ErrnoException | null;
  if ((sys?.syscall !== 'listen' && sys?.syscall !== 'getaddrinfo') || !sys.code) return err;
  return new CliExit(
    2,
    `cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${LISTEN_FAILURES[sys.code] ?? sys.code} (${options})`,
  );
}

export function reportError(err: unknown, json: boolean | undefined): number {
  if (err instanceof ConfigError || err instanceof MasterKeyError || err instanceof SchemaTooNewError || err instanceof DatabaseOpenError) {
    // A config's errors come one per line, each said as borderd's.
    process.stderr.write(
      err.message
        .split('\n')
        .map((line) => `borderd: ${line}\n`)
        .join(''),
    );
    return 2;
  }
  if (err instanceof CliExit) {
    process.stderr.write(`borderd: ${err.message}\n`);
    return err.code;
  }
  if (err instanceof BorderdError) {
    if (json)
      process.stdout.write(
        JSON.stringify({ error: { code: err.code, status: err.status, detail: err.message, errors: err.extra.errors } }) + '\n',
      );
    else {
      // One line; a field error that only repeats the message (invalid_time) is not said twice.
      const more = (err.extra.errors ?? []).filter((e) => !err.message.includes(e.message)).map((e) => `${e.path}: ${e.message}`);
      process.stderr.write(`borderd: ${err.message}${more.length ? ` (${more.join('; ')})` : ''}\n`);
    }
    return 1;
  }
  // better-sqlite3's SqliteError: the busy timeout ran out behind another process's write (a long
  // import, a held transaction). Nothing was written; running the command again is the remedy.
  if (isDatabaseBusy(err)) {
    process.stderr.write(
      'borderd: the database is locked: another process held its write lock longer than database.busyTimeoutMs; try again\n',
    );
    return 1;
  }
  // PostgreSQL ended the command's transaction in a deadlock or a serialization failure on each of
  // its runs: it rolled back whole, so running the command again is the remedy.
  if (isTransientConflict(err)) {
    process.stderr.write(
      "borderd: the database ended this command's transaction in a conflict with another; nothing was written; try again\n",
    );
    return 1;
  }
  if (isDatabaseUnavailable(err)) {
    process.stderr.write(`borderd: the database could not be reached: ${(err as Error).message}; nothing was changed unless said above\n`);
    return 1;
  }
  process.stderr.write(`borderd: ${(err as Error)?.stack ?? String(err)}\n`);
  return 1;
}

/**
 * The CLI's warnings as the rest of its stderr is said: `borderd: ` and the record's message (and
 * its error's), one line each, so a command's output never holds a raw JSON log line.
 */
const sentenceLog = new Writable({
  decodeStrings: false,
  write(chunk: string | Buffer, _encoding, done) {
    const line = chunk.toString();
    let record: { msg?: string; err?: { message?: string } };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      process.stderr.write(line);
      return done();
    }
    const err = record.err?.message ? `: ${record.err.message}` : '';
    process.stderr.write(`borderd: ${(record.msg ?? '').replace(/\s*\n\s*/g, ' ')}${err}\n`);
    done();
  },
});

/**
 * Runs one CLI command on its own context (the same SQLite file the daemon uses, shared through WAL
 * and the busy timeout). Logs go to stderr at warn so stdout stays the command's output.
 */
export async function runWithContext<A extends CommonArgs>(
  args: A,
  fn: (ctx: AppContext) => Promise<void> | void,
  opts: { migrate?: boolean; mayCreateDatabase?: boolean } = {},
): Promise<void> {
  let ctx: OpenContext | undefined;
  const { mayCreateDatabase = false, ...contextOpts } = opts;
  try {
    const config = loadCliConfig(args);
    // A mistyped --db must not become a new database with a new master key: only serve and migrate create one.
    if (!mayCreateDatabase && config.database.url === undefined && !existsSync(config.database.path)) {
      throw new DatabaseOpenError(
        `no database at ${config.database.path} (database.path): check the path, or create it with \`borderd migrate --db ${config.database.path}\` or borderd serve`,
      );
    }
    // BORDERD_CLI_LOG_LEVEL asks for the log itself: JSON lines, as the daemon writes them.
    const level = process.env.BORDERD_CLI_LOG_LEVEL;
    // Loaded here, not above: receive and token share this module's errors but open no database.
    const [{ createContext }, { createLogger }] = await Promise.all([import('../create-context.js'), import('../logging/logger.js')]);
    const log = createLogger({ level: level ?? 'warn', pretty: 'never', destination: level ? process.stderr : sentenceLog });
    ctx = await createContext(config, { log, ...contextOpts });
    await fn(ctx);
  } catch (err) {
    process.exitCode = reportError(err, args.json);
  } finally {
    await ctx?.db.close();
  }
}

/** Prints the result: JSON for --json, else the human text. */
export function output(args: CommonArgs, value: unknown, human: () => string): void {
  if (args.print !== undefined) return printField(args.print, value);
  process.stdout.write(args.json ? JSON.stringify(value) + '\n' : human() + '\n');
}

/**
 * `--print FIELD`: the field's bare value, one line per item of a list, so a shell takes it without
 * cutting JSON. A field the result does not have is named with the ones it has (exit 2); the
 * command has run by then, as its JSON would say.
 */
function printField(field: string, value: unknown): void {
  const items = Array.isArray(value) ? (value as unknown[]) : (pageItems(value, field) ?? [value]);
  const lines = items.map((item) => {
    const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    if (!(field in record))
      throw new CliExit(2, `--print ${field}: the result has no field ${field}; it has ${Object.keys(record).join(', ') || 'none'}`);
    const v = record[field];
    return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean);
  });
  process.stdout.write(lines.map((line) => `${line}\n`).join(''));
}

/** A page of a list (`{ data: [...], hasMore }`) is a list: its items, unless the page itself has the field. */
function pageItems(value: unknown, field: string): unknown[] | undefined {
  if (typeof value !== 'object' || value === null || field in value) return undefined;
  const data = (value as { data?: unknown }).data;
  return Array.isArray(data) ? (data as unknown[]) : undefined;
}

/**
 * The options that chose the database and config, as words to paste into a following command, so
 * a printed hint reads the database this command read. A database URL that carries a credential is
 * never printed: the hint names it by the environment variable instead, which the shell expands.
 */
export function databaseWords(args: CommonArgs): string[] {
  const words: string[] = [];
  if (args.config !== undefined) words.push(`--config ${shellWord(args.config)}`);
  if (args.db !== undefined) words.push(`--db ${shellWord(args.db)}`);
  if (args.databaseUrl !== undefined) {
    const printable = redactedUrl(args.databaseUrl) === args.databaseUrl;
    words.push(`--database-url ${printable ? shellWord(args.databaseUrl) : '"$BORDERD_DATABASE_URL"'}`);
  }
  return words;
}

/** A value as one shell word: bare when it holds nothing the shell reads, else in single quotes. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Rows as aligned columns; the column names are checked against the row type, so a renamed field cannot print '-' silently. */
export function table<T extends object>(rows: readonly T[], columns: readonly (keyof T & string)[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '-' : String(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (vals: readonly string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}
