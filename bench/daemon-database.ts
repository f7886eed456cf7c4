import { openConnection, type Connection } from '../src/db/sqlite-connection.js';

/**
 * A read-only window on a running daemon's database, for counting what it has durably stored
 * (an acknowledged notification, a delivered row) without adding HTTP load to the figures.
 */
export class DaemonDatabase {
  readonly #db: Connection;

  constructor(path: string) {
    // openConnection, like the daemon: statements kept per connection, nothing left for the collector.
    this.#db = openConnection(path, { readonly: true, busyTimeoutMs: 5000 });
  }

  /** Counts of rows of `table` by `column` value. Table and column are bench constants, never input. */
  countBy(table: string, column: string): Record<string, number> {
    const rows = this.#db.prepare(`SELECT ${column} AS k, count(*) AS n FROM ${table} GROUP BY ${column}`).all() as {
      k: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.k, r.n]));
  }

  get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.#db.prepare(sql).get(...params) as T | undefined;
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.#db.prepare(sql).all(...params) as T[];
  }

  close(): void {
    this.#db.close();
  }
}

/** Polls `check` every `everyMs` until it returns true or `timeoutMs` passes (then throws `what`). */
export async function waitUntil(check: () => boolean, what: string, timeoutMs: number, everyMs = 20): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
