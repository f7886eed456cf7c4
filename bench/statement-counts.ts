/**
 * What the PostgreSQL server ran for one phase of a benchmark, counted by the server itself
 * (pg_stat_statements, which the embedded server preloads): statements per unit of work (a
 * delivery, an event written), and the statements that made most of them. On a server given by
 * URL without the extension loaded, nothing is counted and the phase is reported without it. For a
 * table named by the caller, also its row updates per unit and the share of them that were HOT (the
 * new row version on the old one's page, no index written): pg_stat_user_tables, as far as the
 * backends have reported it (each at most once a second while busy, within 10 s once idle, and at
 * its exit), so a read right after the work sees nearly all of it.
 *
 * @module bench/statement-counts
 */
import pg from 'pg';

export interface StatementCounts {
  /** Statements the server ran for the database per unit of work, BEGIN and COMMIT among them. */
  perUnit: number;
  /** The statements run most often, each with its calls per unit and its execution time per call (ms). */
  top: { query: string; perUnit: number; msPerCall: number }[];
  /** The table asked for, when it had rows updated: its row updates per unit, and the percentage of them that were HOT. */
  updates?: { table: string; perUnit: number; hotPct: number };
}

interface TableUpdates {
  updated: number;
  hot: number;
}

/** Counts of one database's statements between `start()` and `read(units)`. */
export interface StatementCounter {
  start(): Promise<void>;
  read(units: number): Promise<StatementCounts | undefined>;
  close(): Promise<void>;
}

/**
 * A counter for the database at `url`, and for the updates of `table` in it; every method does
 * nothing where pg_stat_statements is not loaded.
 */
export async function statementCounter(url: string, table?: string): Promise<StatementCounter> {
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
  const mine = "query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_stat_user_tables%'";
  const ours = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${mine}`;
  const tableUpdates = async (): Promise<TableUpdates> => {
    const row = (
      await client.query<{ updated: string; hot: string }>(
        'SELECT n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = $1',
        [table],
      )
    ).rows[0];
    return { updated: Number(row?.updated ?? 0), hot: Number(row?.hot ?? 0) };
  };
  let updatesAtStart: TableUpdates | undefined;
  return {
    async start() {
      if (!loaded) return;
      await client.query('SELECT pg_stat_statements_reset()');
      if (table !== undefined) updatesAtStart = await tableUpdates();
    },
    async read(units) {
      if (!loaded || units <= 0) return undefined;
      const rows = (
        await client.query<{ query: string; calls: string; ms: number }>(
          `SELECT query, calls, total_exec_time AS ms FROM pg_stat_statements WHERE ${ours} ORDER BY calls DESC`,
        )
      ).rows;
      const total = rows.reduce((sum, r) => sum + Number(r.calls), 0);
      let updates: StatementCounts['updates'];
      if (table !== undefined && updatesAtStart) {
        const now = await tableUpdates();
        const updated = now.updated - updatesAtStart.updated;
        if (updated > 0) updates = { table, perUnit: updated / units, hotPct: (100 * (now.hot - updatesAtStart.hot)) / updated };
      }
      return {
        ...(updates ? { updates } : {}),
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
  const u = counts.updates;
  const updates = u ? [`  ${u.table}: ${u.perUnit.toFixed(2)} row updates per unit, ${u.hotPct.toFixed(0)}% of them HOT`] : [];
  return [`${label}: ${counts.perUnit.toFixed(2)} statements per unit`, ...updates, ...lines].join('\n');
}
