import { vi } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { SqliteDatabase } from '../../src/db/sqlite.js';
import type { Connection } from '../../src/db/sqlite-connection.js';
import { insertDelivery } from '../../src/store/deliveries.js';

/**
 * The query plans of what a piece of code runs. borderd's databases never have ANALYZE statistics,
 * so SQLite plans each statement from its indexes alone; a plan that sorts a whole table slice per
 * page, or reads a backlog per row, passes every functional test at test sizes and stalls the daemon
 * at real ones. Tests assert on the plan instead of on a time, which these shared machines cannot.
 */
export interface Planned {
  sql: string;
  /** EXPLAIN QUERY PLAN's lines joined with " | ". */
  plan: string;
}

/**
 * Runs `fn`, recording every SQL text it prepares on the SQLite database `database` (matching
 * `only`), and returns their plans.
 */
export async function plansOf(database: Database, fn: () => unknown, only: RegExp = /./): Promise<Planned[]> {
  const db: Connection = (database as SqliteDatabase).conn;
  const statements = new Set<string>();
  const prepare = db.prepare.bind(db);
  const spy = vi.spyOn(db, 'prepare').mockImplementation(((sql: string) => {
    if (only.test(sql) && !/^\s*(PRAGMA|BEGIN|COMMIT|SAVEPOINT|RELEASE|ROLLBACK)/i.test(sql)) statements.add(sql);
    return prepare(sql);
  }) as Connection['prepare']);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return [...statements].map((sql) => {
    // The plan does not depend on the values: every parameter is bound to null.
    const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
    const named = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1]!, null]));
    const explain = prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const rows = (Object.keys(named).length > 0 ? explain.all(named) : explain.all(...params)) as { detail: string }[];
    return { sql, plan: rows.map((r) => r.detail).join(' | ') };
  });
}

/** `count` pending deliveries dlv_0… of webhook whk_x (organization org_a): rows alone, foreign keys off, nothing behind them. */
export async function insertBareDeliveries(db: Database, count: number): Promise<void> {
  await db.exec('PRAGMA foreign_keys = OFF');
  for (let i = 0; i < count; i++)
    await insertDelivery(db, {
      id: `dlv_${i}`,
      eventId: `evt_${i}`,
      webhookId: 'whk_x',
      orgId: 'org_a',
      state: 'pending',
      nextAttemptAt: 0,
      at: '2026-01-01T00:00:00.000Z',
    });
}
