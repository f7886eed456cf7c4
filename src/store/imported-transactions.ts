/**
 * Imported transactions (rows of `transactions` with origin `imported`): their insert, the
 * re-import check, and the sample the benchmark summary reads.
 *
 * @module store/imported-transactions
 */
import { sql, type Db } from '../db/database.js';
import { indexedBy, ROW_ORDER, rowOrderStart } from '../db/dialect.js';
import { SAMPLE_CLASSES, type SampleItem } from '../domain/benchmark-stats.js';
import { insertTransactionRow } from './transactions.js';

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

export async function insertImportedTransaction(db: Db, t: ImportedTransaction): Promise<void> {
  await insertTransactionRow(db, 'imported', t, {
    provider: t.provider,
    provider_transaction_id: t.providerTransactionId,
    country: t.country,
    corridor: t.corridor,
    benchmark: t.benchmark,
    review_state: t.reviewState,
    reconciliation: t.reconciliation,
    amount_usd: t.amountUsd,
    cost_vs_market_usd: t.costVsMarketUsd,
    import_id: t.importId,
  });
}

/** Whether the organization already holds an imported transaction with this provider id (re-imports are refused). */
export async function importedTransactionExists(
  db: Db,
  orgId: string,
  provider: string | null,
  providerTransactionId: string,
): Promise<boolean> {
  return (
    (await db.get(
      `SELECT 1 FROM transactions WHERE org_id = ? AND origin = 'imported' AND provider_transaction_id = ? AND provider IS NOT DISTINCT FROM ?`,
      [orgId, providerTransactionId, provider],
    )) !== undefined
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
 * One walk of the sample along one index, in that index's own order: `key` is the column the
 * entries are ordered by after the driving equality (`rowid` alone when the equality is the whole
 * index), so each page is a seek past the last row of the one before and no page sorts anything.
 */
interface SampleScan {
  index: string;
  /** The index's driving equality besides org_id, if any. */
  equals?: { column: string; value: string };
  key: 'rowid' | 'created_at' | 'updated_at';
}

/** Equality filters with an (org_id, column) index, in the order they are tried as the driver: the likeliest to narrow first. */
const EQUALITY_INDEXES = [
  ['providerTransactionId', 'provider_transaction_id', 'transactions_org_provider_txn'],
  ['country', 'country', 'transactions_org_country'],
  ['provider', 'provider', 'transactions_org_provider'],
  ['status', 'status', 'transactions_org_status'],
  ['type', 'type', 'transactions_org_type'],
  ['reviewState', 'review_state', 'transactions_org_review'],
  ['reconciliation', 'reconciliation', 'transactions_org_reconciliation'],
  ['currency', 'currency', 'transactions_org_currency'],
  ['benchmark', 'benchmark', 'transactions_org_benchmark'],
] as const satisfies readonly (readonly [keyof SummaryFilter, string, string])[];

/** The walks that together read the sample once: the first equality given, else origin or a date range, else one per sample class. */
function sampleScans(f: SummaryFilter): SampleScan[] {
  for (const [field, column, index] of EQUALITY_INDEXES) {
    const value = f[field];
    if (value !== undefined) return [{ index, equals: { column, value }, key: 'rowid' }];
  }
  if (f.origin !== 'all') return [{ index: 'transactions_org_origin', equals: { column: 'origin', value: f.origin }, key: 'created_at' }];
  if (f.createdFrom !== undefined || f.createdTo !== undefined) return [{ index: 'transactions_org_created', key: 'created_at' }];
  if (f.updatedFrom !== undefined || f.updatedTo !== undefined) return [{ index: 'transactions_org_updated', key: 'updated_at' }];
  return SAMPLE_CLASSES.map((value) => ({ index: 'transactions_org_benchmark', equals: { column: 'benchmark', value }, key: 'rowid' }));
}

/**
 * The sample of the summary: the organization's Competitive, InLine and OffMarket transactions
 * matching the filter. The statistic reads each row once and keeps running sums (the order does not
 * matter), so the sample is read a page at a time and never held whole, in one read transaction so
 * every page comes from the same snapshot.
 *
 * Each page continues along one index (`INDEXED BY`, see `sampleScans`) from the last row read, in
 * the order the index keeps. Paged by id instead, SQLite, which has no table statistics, walks the
 * (org_id, benchmark) index and sorts the whole sample for each page: quadratic in the sample.
 * Forcing the index also keeps the plan from depending on statistics at all. Pages, not
 * better-sqlite3's iterate(): each iterate() makes a native iterator object for the collector, and
 * on Node 24 a native SQLite object collected at the wrong moment aborts the process
 * (docs/architecture.md, "Native objects"); each page query is one cached statement for the life of
 * the connection, one SQL shape per index.
 */
export async function forEachBenchmarkSample(db: Db, orgId: string, f: SummaryFilter, visit: (item: SampleItem) => void): Promise<void> {
  const scans = sampleScans(f);
  // One snapshot for every page; inside a caller's transaction the snapshot is already the caller's.
  await db.snapshot(async (tx) => {
    for (const scan of scans) await walk(tx, orgId, f, scan, visit);
  });
}

/** Every filter but the scan's own equality appears in every shape, as `(? IS NULL OR column = ?)`, so each index has one SQL text. */
async function walk(db: Db, orgId: string, f: SummaryFilter, scan: SampleScan, visit: (item: SampleItem) => void): Promise<void> {
  const where = ['org_id = ?'];
  const params: (string | number | null)[] = [orgId];
  if (scan.equals) {
    where.push(`${scan.equals.column} = ?`);
    params.push(scan.equals.value);
  }
  where.push(`benchmark IN (${SAMPLE_CLASSES.map(() => '?').join(', ')})`);
  params.push(...SAMPLE_CLASSES);
  const others: [string, string | undefined][] = [
    ...EQUALITY_INDEXES.map(([field, column]) => [column, f[field]] as [string, string | undefined]),
    ['origin', f.origin === 'all' ? undefined : f.origin],
    ['created_at >=', f.createdFrom],
    ['created_at <=', f.createdTo],
    ['updated_at >=', f.updatedFrom],
    ['updated_at <=', f.updatedTo],
  ];
  for (const [column, value] of others) {
    if (column === scan.equals?.column) continue;
    const [name, op = '='] = column.split(' ');
    where.push(`(CAST(? AS TEXT) IS NULL OR ${name} ${op} ?)`);
    params.push(value ?? null, value ?? null);
  }
  const columns = `id, benchmark, COALESCE(amount_usd, '0') AS "amountUsd", COALESCE(cost_vs_market_usd, '0') AS "costVsMarketUsd", provider, corridor`;
  // SQLite walks the index it is told, in ROW_ORDER; PostgreSQL plans from its statistics.
  const row = ROW_ORDER;
  const from = sql`FROM transactions ${indexedBy(scan.index)} WHERE ${where.join(' AND ')}`;
  // The position: the last row's rowid, after its key value when the index orders by a time
  // first. The first page starts before every row (rowids are positive), or at the range's start,
  // and a time-ordered walk ends at the range's end (or after every time: '~' sorts after any
  // stored instant), so a narrow range reads only its own part of the index.
  const range = scan.key === 'created_at' ? [f.createdFrom, f.createdTo] : scan.key === 'updated_at' ? [f.updatedFrom, f.updatedTo] : [];
  const text =
    scan.key === 'rowid'
      ? sql`SELECT ${row} AS position, ${columns} ${from} AND ${row} > ? ORDER BY ${row} LIMIT ${String(SAMPLE_PAGE)}`
      : sql`SELECT ${row} AS position, ${scan.key} AS "positionKey", ${columns} ${from} AND ${scan.key} <= ? AND (${scan.key}, ${row}) > (?, ?) ORDER BY ${scan.key}, ${row} LIMIT ${String(SAMPLE_PAGE)}`;
  const end = scan.key === 'rowid' ? [] : [range[1] ?? '~'];
  const before = rowOrderStart(db);
  let after: (string | number)[] = scan.key === 'rowid' ? [before] : [range[0] ?? '', before];
  for (;;) {
    const page = (await db.all(text, [...params, ...end, ...after])) as (SampleItem & {
      position: number | string;
      positionKey?: string;
    })[];
    for (const item of page) visit(item);
    if (page.length < SAMPLE_PAGE) return;
    const last = page[page.length - 1]!;
    after = scan.key === 'rowid' ? [last.position] : [last.positionKey!, last.position];
  }
}
