/**
 * A PostgreSQL server of one test file's own, for tests that stop and start the server under
 * running daemons; the shared server of the postgres project must never be stopped.
 */
import { startPostgresServer, type PostgresServer } from '../../bench/postgres-server.js';

/** Distinct, so a test can look for it in what a daemon printed. */
export const PASSWORD = 'own-server-secret-4e1d';

export type OwnPostgres = PostgresServer;

export const startOwnPostgres = (): Promise<OwnPostgres> => startPostgresServer(PASSWORD);

/** Polls `check` every 100 ms until it says true; fails after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
