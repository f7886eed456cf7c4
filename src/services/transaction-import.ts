/**
 * Imported transactions (origin 'imported'), one per CSV row or JSON line, with the fields the
 * benchmark summary needs. The whole file is validated first and written in ONE transaction: any
 * bad line refuses the file, each error naming its line. A (provider, providerTransactionId)
 * already imported for the organization, or repeated in the file, is refused so a re-import cannot
 * double count.
 *
 * @module services/transaction-import
 */
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { corridor, countryCodeOrUnknown } from '../domain/country-code.js';
import { NETWORK_IDS } from '../domain/crypto-address.js';
import { notFound, type FieldError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { SAMPLE_CLASSES } from '../domain/benchmark-stats.js';
import { importedTransactionExists, insertImportedTransaction, type ImportedTransaction } from '../store/imported-transactions.js';
import { getOrganization } from '../store/organizations.js';
import { TRANSACTION_STATUSES } from '../verify/events.js';
import { zodIssuesToFieldErrors } from '../domain/field-errors.js';
import { importRefused } from './import-errors.js';
import { BENCHMARK_CLASSES, RECONCILIATION_RESULTS, REVIEW_STATES, SUMMARY_TYPES } from './benchmark-summary.js';
import { parseCsv } from './csv.js';
import { holdLock, withTransaction } from '../db/database.js';

const decimal = z.string().regex(/^-?\d{1,18}(\.\d{1,18})?$/, 'must be a decimal string such as 1234.56');
/**
 * An ISO 8601 instant with an offset whose UTC form, as stored, has a four-digit year. Stored
 * instants are compared as text by the summary's date filters: 9999-12-31T23:30:00-01:00 is
 * "+010000-01-01T00:30:00.000Z" in UTC, which sorts before every four-digit year.
 */
const instant = z.iso.datetime({ offset: true }).refine((v) => {
  const ms = Date.parse(v);
  // Not a datetime at all: the format check above reports it (zod runs this check too).
  return Number.isNaN(ms) || /^\d{4}-/.test(isoAt(ms));
}, 'must be an instant from year 0000 to 9999 in UTC');
const empty = (v: unknown) => (v === '' || v === null ? undefined : v);
const opt = <T extends z.ZodType>(s: T) => z.preprocess(empty, s.optional());

export const importRowSchema = z
  .strictObject({
    type: z.enum(SUMMARY_TYPES),
    status: z.enum(TRANSACTION_STATUSES),
    provider: opt(z.string().min(1).max(100)),
    providerTransactionId: opt(z.string().min(1).max(200)),
    amount: opt(decimal),
    currency: opt(z.string().regex(/^[A-Z0-9]{2,12}$/, 'must be an upper-case currency or asset code')),
    network: opt(z.enum(NETWORK_IDS)),
    country: opt(countryCodeOrUnknown),
    corridor: opt(corridor),
    benchmark: opt(z.enum(BENCHMARK_CLASSES)),
    reviewState: opt(z.enum(REVIEW_STATES)),
    reconciliation: opt(z.enum(RECONCILIATION_RESULTS)),
    amountUsd: decimal.refine((v) => !v.startsWith('-'), 'must not be negative'),
    costVsMarketUsd: opt(decimal),
    createdAt: instant,
    updatedAt: opt(instant),
  })
  .superRefine((r, zctx) => {
    if (r.benchmark && (SAMPLE_CLASSES as readonly string[]).includes(r.benchmark) && r.costVsMarketUsd === undefined) {
      zctx.addIssue({ code: 'custom', path: ['costVsMarketUsd'], message: `is required when benchmark is ${r.benchmark}` });
    }
  });
export type ImportRow = z.output<typeof importRowSchema>;

export type ImportFormat = 'csv' | 'jsonl';

/** Records of the file with their 1-based line numbers; CSV keys come from the header row. */
export function readRecords(text: string, format: ImportFormat): { line: number; value: unknown; error?: string }[] {
  if (format === 'csv') return parseCsv(text);
  return text.split(/\r?\n/).flatMap((raw, i) => {
    if (!raw.trim()) return [];
    try {
      return [{ line: i + 1, value: JSON.parse(raw) as unknown }];
    } catch (err) {
      return [{ line: i + 1, value: undefined, error: `not JSON: ${(err as Error).message}` }];
    }
  });
}

/** The lines whose (provider, providerTransactionId) the organization already holds. */
async function alreadyImported(ctx: AppContext, orgId: string, rows: { line: number; row: ImportRow }[]): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const { line, row } of rows) {
    if (row.providerTransactionId && (await importedTransactionExists(ctx.db, orgId, row.provider ?? null, row.providerTransactionId))) {
      errors.push({ path: `line ${line}.providerTransactionId`, message: 'already imported' });
    }
  }
  return errors;
}

const lineOf = (e: FieldError): number => Number(/^line (\d+)/.exec(e.path)?.[1] ?? 0);
const byLine = (a: FieldError, b: FieldError): number => lineOf(a) - lineOf(b);

export async function importTransactions(
  ctx: AppContext,
  orgId: string,
  text: string,
  format: ImportFormat,
  onProgress?: (done: number, total: number) => void,
): Promise<{ imported: number; importId: string }> {
  if (!(await getOrganization(ctx.db, orgId))) throw notFound(`organization ${orgId}`);
  const records = readRecords(text, format);
  const errors: FieldError[] = [];
  const rows: { line: number; row: ImportRow }[] = [];
  const seen = new Map<string, number>();
  for (const rec of records) {
    if (rec.error) {
      errors.push({ path: `line ${rec.line}`, message: rec.error });
      continue;
    }
    const r = importRowSchema.safeParse(rec.value);
    if (!r.success) {
      errors.push(...zodIssuesToFieldErrors(r.error, `line ${rec.line}`));
      continue;
    }
    if (r.data.providerTransactionId) {
      const key = `${r.data.provider ?? ''}\u0000${r.data.providerTransactionId}`;
      const first = seen.get(key);
      if (first !== undefined) errors.push({ path: `line ${rec.line}.providerTransactionId`, message: `repeats line ${first}` });
      seen.set(key, first ?? rec.line);
    }
    rows.push({ line: rec.line, row: r.data });
  }
  if (records.length === 0) errors.push({ path: 'file', message: 'holds no transactions' });
  // A refused file still lists its already-imported lines (read only, for the report).
  if (errors.length) throw importRefused([...errors, ...(await alreadyImported(ctx, orgId, rows))].sort(byLine));

  const now = ctx.clock.now();
  const importId = newId('imp', now);
  // The duplicate check and the inserts share one transaction under the organization's import lock,
  // so two imports of the same file cannot both pass the check; the UNIQUE index of migration 007
  // backs it up.
  await withTransaction(ctx, async (ctx) => {
    await holdLock(ctx.db, `import:${orgId}`);
    const duplicates = await alreadyImported(ctx, orgId, rows);
    if (duplicates.length) throw importRefused(duplicates);
    for (const [i, { row }] of rows.entries()) {
      const createdAt = isoAt(Date.parse(row.createdAt));
      const t: ImportedTransaction = {
        id: newId('txn', now),
        orgId,
        importId,
        type: row.type,
        status: row.status,
        amount: row.amount ?? null,
        currency: row.currency ?? null,
        network: row.network ?? null,
        provider: row.provider ?? null,
        providerTransactionId: row.providerTransactionId ?? null,
        country: row.country ?? null,
        corridor: row.corridor ?? null,
        benchmark: row.benchmark ?? null,
        reviewState: row.reviewState ?? null,
        reconciliation: row.reconciliation ?? null,
        amountUsd: row.amountUsd,
        costVsMarketUsd: row.costVsMarketUsd ?? null,
        createdAt,
        updatedAt: row.updatedAt ? isoAt(Date.parse(row.updatedAt)) : createdAt,
      };
      await insertImportedTransaction(ctx.db, t);
      if (onProgress && (i + 1) % 500 === 0) onProgress(i + 1, rows.length);
    }
  });
  onProgress?.(rows.length, rows.length);
  return { imported: rows.length, importId };
}
