import type { Db } from '../db/open.js';
import { SAMPLE_CLASSES, type SampleItem } from '../domain/benchmark-stats.js';

export interface ImportedTransaction {
  id: string;
  orgId: string;
  importId: string;
  type: string;
  status: string;
  amount: string | null;
  currency: string | null;
  network: string | null;
  provider: string | null;
  providerTransactionId: string | null;
  country: string | null;
  corridor: string | null;
  benchmark: string | null;
  reviewState: string | null;
  reconciliation: string | null;
  amountUsd: string;
  costVsMarketUsd: string | null;
  createdAt: string;
  updatedAt: string;
}

export function insertImportedTransaction(db: Db, t: ImportedTransaction): void {
  db.prepare(
    `INSERT INTO transactions (id, org_id, origin, type, status, amount, currency, network, provider, provider_transaction_id, country, corridor,
       benchmark, review_state, reconciliation, amount_usd, cost_vs_market_usd, import_id, created_at, updated_at)
     VALUES (?, ?, 'imported', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(t.id, t.orgId, t.type, t.status, t.amount, t.currency, t.network, t.provider, t.providerTransactionId, t.country, t.corridor, t.benchmark, t.reviewState, t.reconciliation, t.amountUsd, t.costVsMarketUsd, t.importId, t.createdAt, t.updatedAt);
}

/** Whether the organization already holds an imported transaction with this provider id (re-imports are refused). */
export function importedTransactionExists(db: Db, orgId: string, provider: string | null, providerTransactionId: string): boolean {
  return (
    db
      .prepare(`SELECT 1 FROM transactions WHERE org_id = ? AND origin = 'imported' AND provider_transaction_id = ? AND provider IS ?`)
      .get(orgId, providerTransactionId, provider) !== undefined
  );
}

export interface SummaryFilter {
  origin: 'all' | 'orchestrated' | 'imported';
  status?: string | undefined;
  type?: string | undefined;
  provider?: string | undefined;
  createdFrom?: string | undefined;
  /** Inclusive, like createdFrom. */
  createdTo?: string | undefined;
  updatedFrom?: string | undefined;
  /** Inclusive, like updatedFrom. */
  updatedTo?: string | undefined;
  benchmark?: string | undefined;
  reviewState?: string | undefined;
  reconciliation?: string | undefined;
  country?: string | undefined;
  currency?: string | undefined;
  providerTransactionId?: string | undefined;
}

/** Rows read per statement step of the sample. */
const SAMPLE_PAGE = 1000;

/**
 * The sample of the summary: the organization's Competitive, InLine and OffMarket transactions
 * matching the filter, by id. The statistic reads each row once and keeps running sums, so the
 * sample is read a page at a time (keyset, by id) and never held whole, in one read transaction so
 * every page comes from the same snapshot. Pages, not better-sqlite3's iterate(): each iterate()
 * makes a native iterator object for the collector, and on Node 24 a native SQLite object collected
 * at the wrong moment aborts the process (docs/architecture.md, "Native objects"); the page query is
 * one cached statement for the life of the connection.
 */
export function selectBenchmarkSample(db: Db, orgId: string, f: SummaryFilter): IterableIterator<SampleItem> {
  const where = ['org_id = ?', `benchmark IN (${SAMPLE_CLASSES.map(() => '?').join(', ')})`];
  const params: (string | null)[] = [orgId, ...SAMPLE_CLASSES];
  // Equality filters, the likeliest to narrow the sample first. The first one given is written as
  // `column = ?`, so SQLite can walk that column's index; every other one always appears, as
  // `(? IS NULL OR column = ?)`. The SQL text then has one shape per driving filter (and date
  // range), a few dozen in all, instead of one per combination of the ten (over a thousand):
  // each shape is a statement kept for the life of the connection (db/open.ts, cacheStatements),
  // and a cache that overflowed would drop statements for the collector.
  const equalities: [string, string | undefined][] = [
    ['provider_transaction_id', f.providerTransactionId],
    ['country', f.country],
    ['provider', f.provider],
    ['status', f.status],
    ['type', f.type],
    ['review_state', f.reviewState],
    ['reconciliation', f.reconciliation],
    ['currency', f.currency],
    ['benchmark', f.benchmark],
    ['origin', f.origin === 'all' ? undefined : f.origin],
  ];
  const driver = equalities.find(([, value]) => value !== undefined);
  for (const entry of equalities) {
    const [column, value] = entry;
    if (entry === driver) (where.push(`${column} = ?`), params.push(value!));
    else (where.push(`(? IS NULL OR ${column} = ?)`), params.push(value ?? null, value ?? null));
  }
  const range = (column: string, op: string, value: string | undefined) => {
    if (value !== undefined) (where.push(`${column} ${op} ?`), params.push(value));
  };
  range('created_at', '>=', f.createdFrom);
  range('created_at', '<=', f.createdTo);
  range('updated_at', '>=', f.updatedFrom);
  range('updated_at', '<=', f.updatedTo);
  const sql =
    `SELECT id, benchmark, COALESCE(amount_usd, '0') AS amountUsd, COALESCE(cost_vs_market_usd, '0') AS costVsMarketUsd, provider, corridor
     FROM transactions WHERE ${where.join(' AND ')} AND id > ? ORDER BY id LIMIT ${SAMPLE_PAGE}`;
  return (function* pages(): Generator<SampleItem> {
    // Inside a caller's transaction the snapshot is already the caller's.
    const own = !db.inTransaction;
    if (own) db.exec('BEGIN');
    try {
      let after = '';
      for (;;) {
        const page = db.prepare(sql).all(...params, after) as SampleItem[];
        yield* page;
        if (page.length < SAMPLE_PAGE) return;
        after = page[page.length - 1]!.id;
      }
    } finally {
      if (own) db.exec('COMMIT');
    }
  })();
}
