/**
 * What the PostgreSQL server ran for one phase of a benchmark, counted by the server itself
 * (pg_stat_statements, which the embedded server preloads): statements per unit of work (a
 * delivery, an event written), and the statements that made most of them. On a server given by
 * URL without the extension loaded, nothing is counted and the phase is reported without it.
 *
 * @module bench/statement-counts
 */
import pg from 'pg';

export interface StatementCounts {
  /** Statements the server ran for the database per unit of work, BEGIN and COMMIT among them. */
  perUnit: number;
  /** The statements run most often, each with its calls per unit and its execution time per call (ms). */
  top: { query: string; perUnit: number; msPerCall: number }[];
}

/** Counts of one database's statements between `start()` and `read(units)`. */
export interface StatementCounter {
  start(): Promise<void>;
  read(units: number): Promise<StatementCounts | undefined>;
  close(): Promise<void>;
}

/** A counter for the database at `url`; every method does nothing where pg_stat_statements is not loaded. */
export async function statementCounter(url: string): Promise<StatementCounter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let loaded = true;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
  } catch {
    loaded = false;
  }
  // The counter's own statements are left out by their text.
  const mine = "query NOT LIKE '%pg_stat_statements%'";
  const ours = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${mine}`;
  return {
    async start() {
      if (loaded) await client.query('SELECT pg_stat_statements_reset()');
    },
    async read(units) {
      if (!loaded || units <= 0) return undefined;
      const rows = (
        await client.query<{ query: string; calls: string; ms: number }>(
          `SELECT query, calls, total_exec_time AS ms FROM pg_stat_statements WHERE ${ours} ORDER BY calls DESC`,
        )
      ).rows;
      const total = rows.reduce((sum, r) => sum + Number(r.calls), 0);
      return {
        perUnit: total / units,
        top: rows.slice(0, 8).map((r) => ({
          query: r.query.replace(/\s+/g, ' ').slice(0, 90),
          perUnit: Number(r.calls) / units,
          msPerCall: r.ms / Number(r.calls),
        })),
      };
    },
    close: () => client.end(),
  };
}

/** The counts as log lines: the total, then each frequent statement. */
export function describeCounts(label: string, counts: StatementCounts | undefined): string {
  if (!counts) return `${label}: statements not counted (pg_stat_statements not loaded)`;
  const lines = counts.top.map((t) => `  ${t.perUnit.toFixed(2)} × ${t.msPerCall.toFixed(3)} ms  ${t.query}`);
  return [`${label}: ${counts.perUnit.toFixed(2)} statements per unit`, ...lines].join('\n');
}
