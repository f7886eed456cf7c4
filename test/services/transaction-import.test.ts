import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { isoAt } from '../../src/domain/clock.js';
import { importIdentities } from '../../src/services/identities.js';
import { createOrganization } from '../../src/services/organizations.js';
import { importTransactions } from '../../src/services/transaction-import.js';
import { benchmarkSummary, summaryQuerySchema } from '../../src/services/benchmark-summary.js';
import { insertImportedTransaction, type ImportedTransaction } from '../../src/store/imported-transactions.js';
import { countTransactions } from '../../src/store/transactions.js';
import { makeContext, type TestContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';

/** For what SQLite alone has (its write lock, its query plans): skipped on the postgres project. */
const itOnSqlite = it.skipIf(onPostgres);

// The duplicate check is wrapped so a test can act, from another connection, at the moment the
// import looks a key up: that is where a second import used to slip in between check and insert.
const race = vi.hoisted(() => ({ beforeCheck: undefined as (() => Promise<void>) | undefined }));
vi.mock('../../src/store/imported-transactions.js', async (importOriginal) => {
  const store = await importOriginal<typeof import('../../src/store/imported-transactions.js')>();
  return {
    ...store,
    importedTransactionExists: async (...args: Parameters<typeof store.importedTransactionExists>) => {
      const hook = race.beforeCheck;
      race.beforeCheck = undefined;
      await hook?.();
      return store.importedTransactionExists(...args);
    },
  };
});

const CSV = [
  'type,status,provider,providerTransactionId,benchmark,amountUsd,costVsMarketUsd,createdAt',
  'Deposit,Completed,P1,p-1,InLine,100,1,2026-01-01T00:00:00Z',
  'Deposit,Completed,P1,p-2,InLine,50,2,2026-01-01T00:00:00Z',
].join('\n');

const row = (ctx: TestContext, orgId: string, id: string, provider: string | null, providerTransactionId: string): ImportedTransaction => ({
  id,
  orgId,
  importId: 'imp_x',
  type: 'Deposit',
  status: 'Completed',
  amount: null,
  currency: null,
  network: null,
  provider,
  providerTransactionId,
  country: null,
  corridor: null,
  benchmark: 'InLine',
  reviewState: null,
  reconciliation: null,
  amountUsd: '1',
  costVsMarketUsd: '1',
  createdAt: isoAt(ctx.clock.now()),
  updatedAt: isoAt(ctx.clock.now()),
});
const count = (db: Db, orgId: string) => countTransactions(db, orgId, 'imported');

/** A UNIQUE index refused the row: SQLite's message, or PostgreSQL's. */
const UNIQUE_VIOLATION = /UNIQUE constraint failed|violates unique constraint/;

describe('transaction import deduplication', () => {
  // SQLite's write lock, seen from another connection to the file.
  itOnSqlite('holds the write lock while it checks for duplicates: another writer cannot slip in between check and insert', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const other = openDatabase({ ...ctx.config.database, busyTimeoutMs: 0 });
    let otherWrite: unknown = 'not attempted';
    race.beforeCheck = async () => {
      try {
        await insertImportedTransaction(other, row(ctx, org.id, 'txn_other_1', 'P1', 'p-1'));
        otherWrite = 'written';
      } catch (err) {
        otherWrite = (err as { code?: string }).code;
      }
    };
    expect((await importTransactions(ctx, org.id, CSV, 'csv')).imported).toBe(2);
    expect(otherWrite).toBe('SQLITE_BUSY');
    expect(await count(ctx.db, org.id)).toBe(2);
    // The other writer now finds the rows and is refused by the UNIQUE index too.
    await expect(insertImportedTransaction(other, row(ctx, org.id, 'txn_other_2', 'P1', 'p-1'))).rejects.toThrow(UNIQUE_VIOLATION);
    await other.close();
  });

  it('refuses a second copy of (organization, provider, providerTransactionId) at the database, with or without a provider', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const org2 = await createOrganization(ctx, 'Other');
    await insertImportedTransaction(ctx.db, row(ctx, org.id, 'txn_a', 'P1', 'x'));
    await insertImportedTransaction(ctx.db, row(ctx, org.id, 'txn_b', null, 'x'));
    await expect(insertImportedTransaction(ctx.db, row(ctx, org.id, 'txn_c', 'P1', 'x'))).rejects.toThrow(UNIQUE_VIOLATION);
    await expect(insertImportedTransaction(ctx.db, row(ctx, org.id, 'txn_d', null, 'x'))).rejects.toThrow(UNIQUE_VIOLATION);
    await insertImportedTransaction(ctx.db, row(ctx, org.id, 'txn_e', 'P2', 'x'));
    await insertImportedTransaction(ctx.db, row(ctx, org2.id, 'txn_f', 'P1', 'x'));
    expect(await count(ctx.db, org.id)).toBe(3);
  });

  it('refuses a re-import naming every duplicate line, and lists them with the bad lines of a refused file', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    await importTransactions(ctx, org.id, CSV, 'csv');
    const refusal = async (text: string) => {
      try {
        await importTransactions(ctx, org.id, text, 'csv');
      } catch (err) {
        return (err as { extra: { errors: { path: string; message: string }[] } }).extra.errors;
      }
      throw new Error('accepted');
    };
    expect(await refusal(CSV)).toEqual([
      { path: 'line 2.providerTransactionId', message: 'already imported' },
      { path: 'line 3.providerTransactionId', message: 'already imported' },
    ]);
    expect((await refusal(CSV + '\nDeposit,Nope,P1,p-3,InLine,1,1,2026-01-01T00:00:00Z')).map((e) => e.path)).toEqual([
      'line 2.providerTransactionId',
      'line 3.providerTransactionId',
      'line 4.status',
    ]);
    expect(await count(ctx.db, org.id)).toBe(2);
  });

  it('refuses a country or corridor that is not on the ISO 3166-1 list, and takes ZZ, unknown', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const line = (i: number, extra: Record<string, string>) =>
      JSON.stringify({
        type: 'Deposit',
        status: 'Completed',
        amountUsd: '1',
        createdAt: '2026-01-01T00:00:00Z',
        providerTransactionId: `p-${i}`,
        provider: 'P',
        ...extra,
      });
    let errors: { path: string; message: string }[] = [];
    try {
      await importTransactions(
        ctx,
        org.id,
        [line(1, { country: 'QQ' }), line(2, { corridor: 'US-UK' }), line(3, { country: 'MX', corridor: 'US-MX' })].join('\n'),
        'jsonl',
      );
    } catch (err) {
      errors = (err as { extra: { errors: { path: string; message: string }[] } }).extra.errors;
    }
    expect(errors.map((e) => e.path)).toEqual(['line 1.country', 'line 2.corridor']);
    expect(await count(ctx.db, org.id)).toBe(0);
    await importTransactions(ctx, org.id, [line(1, { country: 'ZZ', corridor: 'ZZ-MX' }), line(2, { country: 'XK' })].join('\n'), 'jsonl');
    expect(await count(ctx.db, org.id)).toBe(2);
  });
});

describe('import progress', () => {
  it('counts the transactions of the file (not blank lines) and ends at 100%', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const lines = Array.from({ length: 1203 }, (_, i) =>
      JSON.stringify({
        type: 'Deposit',
        status: 'Completed',
        amountUsd: '1',
        createdAt: '2026-01-01T00:00:00Z',
        providerTransactionId: `p-${i}`,
        provider: 'P',
      }),
    );
    const text = ['', ...lines.slice(0, 600), '   ', '', ...lines.slice(600), '', ''].join('\n');
    const calls: [number, number][] = [];
    await importTransactions(ctx, org.id, text, 'jsonl', (done, total) => calls.push([done, total]));
    expect(calls).toEqual([
      [500, 1203],
      [1000, 1203],
      [1203, 1203],
    ]);
  });

  it('counts the identities of the file (not blank lines) and ends at 100%', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const good = JSON.stringify({ type: 'Personal', data: { firstName: 'Ana' } });
    const lines = ['', ...Array.from({ length: 501 }, () => good), '', '  ', good, ''];
    const calls: [number, number][] = [];
    expect((await importIdentities(ctx, org.id, lines, (done, total) => calls.push([done, total]))).imported).toBe(502);
    expect(calls).toEqual([
      [500, 502],
      [502, 502],
    ]);
  });
});

describe('imported instants', () => {
  it('refuses a createdAt or updatedAt whose UTC instant is outside the years 0000 to 9999, which the date filters could not place', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const line = (createdAt: string, updatedAt?: string) =>
      JSON.stringify({
        type: 'Deposit',
        status: 'Completed',
        benchmark: 'InLine',
        amountUsd: '1',
        costVsMarketUsd: '7',
        createdAt,
        ...(updatedAt ? { updatedAt } : {}),
      });
    let errors: { path: string; message: string }[] = [];
    try {
      // 23:30 at -01:00 is 10000-01-01T00:30Z in UTC; 00:30 at +01:00 of 0000-01-01 is in year -1.
      await importTransactions(
        ctx,
        org.id,
        [
          line('9999-12-31T23:30:00-01:00'),
          line('2026-01-01T00:00:00Z', '9999-12-31T23:30:00-01:00'),
          line('0000-01-01T00:30:00+01:00'),
        ].join('\n'),
        'jsonl',
      );
    } catch (err) {
      errors = (err as { extra: { errors: { path: string; message: string }[] } }).extra.errors;
    }
    expect(errors.map((e) => e.path)).toEqual(['line 1.createdAt', 'line 2.updatedAt', 'line 3.createdAt']);
    expect(await count(ctx.db, org.id)).toBe(0);
    // The last instants of year 9999 and the first of year 0000, in UTC, are imported and filtered as dated.
    await importTransactions(ctx, org.id, [line('9999-12-31T23:30:00+01:00'), line('0000-01-01T00:30:00-00:00')].join('\n'), 'jsonl');
    const sample = async (q: Record<string, string>) => (await benchmarkSummary(ctx.db, org.id, summaryQuerySchema.parse(q))).sampleSize;
    expect([
      await sample({ toDate: '2026-01-31' }),
      await sample({ fromDate: '2026-01-31' }),
      await sample({ fromDate: '9999-12-31' }),
      await sample({ toDate: '0000-01-01' }),
    ]).toEqual([1, 1, 1, 1]);
  });
});
