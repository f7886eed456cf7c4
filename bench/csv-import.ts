/**
 * The CSV reader behind `borderd import transactions` (csv-parse, src/services/csv.ts) on a file of
 * typical rows, and on one where every row has a value starting with a quote (each such row is
 * checked against its raw text), against JSON lines of the same rows (JSON.parse). In-process: the
 * reading is the part of an import that grows with the file before anything touches the database.
 *
 * @module bench/csv-import
 */
import { readRecords } from '../src/services/transaction-import.js';
import type { Benchmark } from './bench-types.js';

const HEADER = 'type,status,provider,providerTransactionId,amountUsd,costVsMarketUsd,benchmark,createdAt';

/** `n` valid import rows; `provider` is the one field written quoted, as `provider(i)` gives it. */
function rows(n: number, provider: (i: number) => string): { csv: string; jsonl: string } {
  const csv: string[] = [HEADER];
  const jsonl: string[] = [];
  for (let i = 0; i < n; i++) {
    const amount = `${(i % 997) + 1}.25`;
    csv.push(`Deposit,Completed,${provider(i)},p-${i},${amount},1.5,Competitive,2026-01-01T00:00:00.000Z`);
    jsonl.push(
      JSON.stringify({
        type: 'Deposit',
        status: 'Completed',
        provider: `Acme, Ltd ${i % 10}`,
        providerTransactionId: `p-${i}`,
        amountUsd: amount,
        costVsMarketUsd: '1.5',
        benchmark: 'Competitive',
        createdAt: '2026-01-01T00:00:00.000Z',
      }),
    );
  }
  return { csv: csv.join('\n') + '\n', jsonl: jsonl.join('\n') + '\n' };
}

/** Rows per second of the best of `rounds` reads, after checking one read holds exactly `n` good rows. */
function rate(text: string, format: 'csv' | 'jsonl', n: number, rounds: number): number {
  const records = readRecords(text, format);
  if (records.length !== n || records.some((r) => r.error)) throw new Error(`${format}: expected ${n} rows without errors`);
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    readRecords(text, format);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return n / best;
}

export const csvImportBenchmark: Benchmark = {
  name: 'csv',
  title: 'reading an import file: CSV (csv-parse) against JSON lines',
  run: ({ quick, log }) => {
    const n = quick ? 5_000 : 100_000;
    const rounds = quick ? 2 : 5;
    log(`csv: ${n} rows, best of ${rounds}`);
    const typical = rows(n, (i) => `"Acme, Ltd ${i % 10}"`);
    const quoted = rows(n, (i) => `"""Acme"" Ltd ${i % 10}"`);
    const csvRowsPerSecond = rate(typical.csv, 'csv', n, rounds);
    const csvQuoteLeadingRowsPerSecond = rate(quoted.csv, 'csv', n, rounds);
    const jsonlRowsPerSecond = rate(typical.jsonl, 'jsonl', n, rounds);
    return Promise.resolve({
      rows: [
        { metric: 'CSV rows read', value: Math.round(csvRowsPerSecond), unit: 'rows/s', note: `${n} rows` },
        {
          metric: 'CSV rows, a value starting with a quote in each',
          value: Math.round(csvQuoteLeadingRowsPerSecond),
          unit: 'rows/s',
          note: `${((csvQuoteLeadingRowsPerSecond / csvRowsPerSecond) * 100).toFixed(0)}% of the typical rows`,
        },
        {
          metric: 'JSON lines read (comparison)',
          value: Math.round(jsonlRowsPerSecond),
          unit: 'rows/s',
          note: `CSV at ${((csvRowsPerSecond / jsonlRowsPerSecond) * 100).toFixed(0)}% of it`,
        },
      ],
      metrics: {
        rows: n,
        csvRowsPerSecond: Math.round(csvRowsPerSecond),
        csvQuoteLeadingRowsPerSecond: Math.round(csvQuoteLeadingRowsPerSecond),
        jsonlRowsPerSecond: Math.round(jsonlRowsPerSecond),
      },
    });
  },
};
