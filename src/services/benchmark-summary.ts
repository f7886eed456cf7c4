/**
 * The import benchmark summary's request: its filters and their checks, and the whole UTC days its
 * date filters cover (docs/benchmark-summary.md).
 *
 * @module services/benchmark-summary
 */
import { z } from 'zod';
import type { Db } from '../db/database.js';
import { isCalendarDate } from '../domain/calendar-date.js';
import { countryCodeOrUnknown } from '../domain/country-code.js';
import { BenchmarkSample, type BenchmarkSummary } from '../domain/benchmark-stats.js';
import { forEachBenchmarkSample } from '../store/imported-transactions.js';
import { TRANSACTION_STATUSES } from '../verify/events.js';

export const BENCHMARK_CLASSES = ['Competitive', 'InLine', 'OffMarket', 'Calibrating', 'Syncing', 'Stale'] as const;
export const REVIEW_STATES = ['AllClear', 'NeedReview', 'ReconciliationIssues'] as const;
export const RECONCILIATION_RESULTS = ['Matched', 'Mismatched', 'Missing', 'PfiError'] as const;
export const SUMMARY_TYPES = ['Deposit', 'Withdrawal', 'Exchange'] as const;

// The pattern is published in /openapi.json; the refinement also refuses dates that do not exist (2026-02-30).
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a real date YYYY-MM-DD', abort: true })
  .refine(isCalendarDate, 'must be a real date YYYY-MM-DD');

/** Every filter of the spec; the unnamed ones are named in camelCase. */
export const summaryQuerySchema = z
  .strictObject({
    origin: z.enum(['all', 'orchestrated', 'imported']).default('all'),
    status: z.enum(TRANSACTION_STATUSES).optional(),
    type: z.enum(SUMMARY_TYPES).optional(),
    provider: z.string().min(1).max(100).optional(),
    fromDate: date.optional(),
    toDate: date.optional(),
    fromUpdatedDate: date.optional(),
    toUpdatedDate: date.optional(),
    benchmark: z.enum(BENCHMARK_CLASSES).optional(),
    reviewState: z.enum(REVIEW_STATES).optional(),
    reconciliation: z.enum(RECONCILIATION_RESULTS).optional(),
    country: countryCodeOrUnknown.optional(),
    currency: z
      .string()
      .regex(/^[A-Z0-9]{2,12}$/, 'must be an upper-case currency or asset code')
      .optional(),
    providerTransactionId: z.string().min(1).max(200).optional(),
  })
  .superRefine((q, zctx) => {
    const created = q.fromDate !== undefined || q.toDate !== undefined;
    const updated = q.fromUpdatedDate !== undefined || q.toUpdatedDate !== undefined;
    if (created && updated) {
      for (const key of ['fromUpdatedDate', 'toUpdatedDate'] as const) {
        if (q[key] !== undefined)
          zctx.addIssue({ code: 'custom', path: [key], message: `cannot be combined with a createdAt date filter (fromDate/toDate)` });
      }
    }
    if (q.fromDate && q.toDate && q.fromDate > q.toDate)
      zctx.addIssue({ code: 'custom', path: ['toDate'], message: 'must not be before fromDate' });
    if (q.fromUpdatedDate && q.toUpdatedDate && q.fromUpdatedDate > q.toUpdatedDate)
      zctx.addIssue({ code: 'custom', path: ['toUpdatedDate'], message: 'must not be before fromUpdatedDate' });
  });
export type SummaryQuery = z.output<typeof summaryQuerySchema>;

const startOf = (d: string | undefined): string | undefined => (d === undefined ? undefined : `${d}T00:00:00.000Z`);
/**
 * Date filters are inclusive whole UTC days: toDate covers up to the last millisecond of that day
 * (instants are stored with milliseconds). Not "before the next day": the day after 9999-12-31 has
 * no four-digit ISO form, and its "+010000-…" sorts before every stored instant.
 */
const endOf = (d: string | undefined): string | undefined => (d === undefined ? undefined : `${d}T23:59:59.999Z`);

/** Takes a connection, not the context: the daemon runs it on a read worker's connection (src/services/offloaded-reads.ts). */
export async function benchmarkSummary(db: Db, orgId: string, q: SummaryQuery): Promise<BenchmarkSummary> {
  const sample = new BenchmarkSample();
  await forEachBenchmarkSample(
    db,
    orgId,
    {
      ...q,
      createdFrom: startOf(q.fromDate),
      createdTo: endOf(q.toDate),
      updatedFrom: startOf(q.fromUpdatedDate),
      updatedTo: endOf(q.toUpdatedDate),
    },
    (item) => sample.add(item),
  );
  return sample.summary();
}
