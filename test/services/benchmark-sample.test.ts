import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { SAMPLE_CLASSES, type SampleItem } from '../../src/domain/benchmark-stats.js';
import { createOrganization } from '../../src/services/organizations.js';
import { benchmarkSummary, summaryQuerySchema } from '../../src/services/benchmark-summary.js';
import { forEachBenchmarkSample, insertImportedTransaction, type ImportedTransaction } from '../../src/store/imported-transactions.js';
import { makeContext } from '../support/context.js';
import { plansOf } from '../support/query-plans.js';
import { onPostgres } from '../support/postgres.js';

/** For what SQLite alone has (its write lock, its query plans): skipped on the postgres project. */
const itOnSqlite = it.skipIf(onPostgres);

/**
 * The summary's sample is read in pages of 1,000 along one index. These tests hold more than two
 * pages of rows, many of them sharing one createdAt (so a page ends inside a run of equal times),
 * and compare what each kind of filter reads with the filter's own definition.
 */
const TIMES = ['2026-03-01T08:00:00.000Z', '2026-03-02T08:00:00.000Z', '2026-03-03T08:00:00.000Z', '2026-03-04T08:00:00.000Z'];
const CLASSES = [...SAMPLE_CLASSES, 'Stale'] as const;

async function fill(db: Db, orgId: string, n: number): Promise<ImportedTransaction[]> {
  const rows: ImportedTransaction[] = [];
  for (let i = 0; i < n; i++) {
    const t: ImportedTransaction = {
      id: `txn_${orgId.slice(-6)}${String(i).padStart(6, '0')}`,
      orgId,
      importId: 'imp_x',
      type: i % 5 === 0 ? 'Withdrawal' : 'Deposit',
      status: 'Completed',
      amount: null,
      currency: 'USD',
      network: null,
      provider: i % 3 === 0 ? 'P1' : 'P2',
      providerTransactionId: `p-${i}`,
      country: i % 2 === 0 ? 'MX' : 'BR',
      corridor: 'US-MX',
      benchmark: CLASSES[i % CLASSES.length]!,
      reviewState: null,
      reconciliation: null,
      amountUsd: String(1 + (i % 7)),
      costVsMarketUsd: String((i % 11) - 5),
      // Blocks of equal times, longer than nothing and shorter than a page.
      createdAt: TIMES[Math.floor(i / 700) % TIMES.length]!,
      updatedAt: TIMES[(Math.floor(i / 700) + 1) % TIMES.length]!,
    };
    await insertImportedTransaction(db, t);
    rows.push(t);
  }
  return rows;
}

const FILTERS: Record<string, string>[] = [
  {},
  { country: 'MX' },
  { provider: 'P1', type: 'Deposit' },
  { origin: 'imported' },
  { origin: 'imported', fromDate: '2026-03-02' },
  { fromDate: '2026-03-02', toDate: '2026-03-03' },
  { toDate: '2026-03-01' },
  { fromUpdatedDate: '2026-03-03' },
  { benchmark: 'InLine' },
  { benchmark: 'Stale' },
];

/** The filter's definition, over the rows as inserted (every row is imported). */
function expected(rows: readonly ImportedTransaction[], q: Record<string, string>): string[] {
  const day = (iso: string) => iso.slice(0, 10);
  return rows
    .filter((r) => (SAMPLE_CLASSES as readonly string[]).includes(r.benchmark!))
    .filter(
      (r) =>
        (q.country ? r.country === q.country : true) &&
        (q.provider ? r.provider === q.provider : true) &&
        (q.type ? r.type === q.type : true),
    )
    .filter((r) => (q.benchmark ? r.benchmark === q.benchmark : true) && (q.origin && q.origin !== 'all' ? q.origin === 'imported' : true))
    .filter((r) => (q.fromDate ? day(r.createdAt) >= q.fromDate : true) && (q.toDate ? day(r.createdAt) <= q.toDate : true))
    .filter((r) => (q.fromUpdatedDate ? day(r.updatedAt) >= q.fromUpdatedDate : true))
    .map((r) => r.id)
    .sort();
}

describe('benchmark summary sample', () => {
  it('reads every row of the sample exactly once, whichever filter drives the walk, across pages that end inside equal times', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const other = await createOrganization(ctx, 'Other');
    const rows = await fill(ctx.db, org.id, 3_500);
    await fill(ctx.db, other.id, 1_200);
    for (const raw of FILTERS) {
      const q = summaryQuerySchema.parse(raw);
      const read: SampleItem[] = [];
      await forEachBenchmarkSample(
        ctx.db,
        org.id,
        {
          ...q,
          createdFrom: q.fromDate && `${q.fromDate}T00:00:00.000Z`,
          createdTo: q.toDate && `${q.toDate}T23:59:59.999Z`,
          updatedFrom: q.fromUpdatedDate && `${q.fromUpdatedDate}T00:00:00.000Z`,
        },
        (item) => read.push(item),
      );
      const ids = read.map((r) => r.id).sort();
      expect({ filter: raw, ids }).toEqual({ filter: raw, ids: expected(rows, raw) });
      expect((await benchmarkSummary(ctx.db, org.id, q)).sampleSize).toBe(ids.length);
    }
    // The filters above do reach past one page: the sample without a filter is 2,625 rows.
    expect(expected(rows, {}).length).toBe(2_625);
  });

  // SQLite's plans (INDEXED BY, EXPLAIN QUERY PLAN); PostgreSQL plans from its own statistics.
  itOnSqlite(
    'walks an index in its own order for every kind of filter: no page sorts the sample (which made each page cost the whole sample)',
    async () => {
      const ctx = await makeContext();
      const org = await createOrganization(ctx, 'Acme');
      await fill(ctx.db, org.id, 1_500);
      // No ANALYZE has run, as in a daemon's database: the plan must not depend on table statistics.
      const plans = await plansOf(
        ctx.db,
        async () => {
          for (const raw of FILTERS) await benchmarkSummary(ctx.db, org.id, summaryQuerySchema.parse(raw));
        },
        /FROM transactions\b.*\bLIMIT\b/s,
      );
      expect(plans.length).toBeGreaterThanOrEqual(5);
      for (const { sql, plan } of plans) {
        expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringMatching(/TEMP B-TREE/) });
        expect(plan).toMatch(/USING INDEX transactions_org_/);
      }
    },
  );
});
