/**
 * `borderd import transactions`: imported transactions from a CSV or JSON-lines file, with the
 * progress bar and file reading the other importers share.
 *
 * @module cli/import
 */
import { extname } from 'node:path';
import cliProgress from 'cli-progress';
import type { CommandModule } from 'yargs';
import type { z } from 'zod';
import { zodIssuesToFieldErrors } from '../domain/field-errors.js';
import { badRequest } from '../domain/errors.js';
import { importTransactions, type ImportFormat } from '../services/transaction-import.js';
import { CliExit, output, readCliFile, runWithContext, withCommonOptions, type CommonArgs } from './context.js';
import { withoutByteOrderMark } from '../domain/byte-order-mark.js';

/**
 * Progress on stderr: a bar when stderr is a terminal, nothing otherwise (stdout stays the result).
 * `total` is the records of the file (blank lines are not counted), so the bar ends at 100%.
 */
export function progressReporter(
  label: string,
  stream: NodeJS.WriteStream = process.stderr,
): { update: (done: number, total: number) => void; stop: () => void } {
  if (!stream.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream, format: `${label} [{bar}] {percentage}% {value}/{total}` },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (done, total) => {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
}

/**
 * The text of an import file. A leading byte order mark (editors on Windows save UTF-8 with one) is
 * dropped here, for every format: left in, it would make the first JSON line "not JSON".
 */
export function readInputFile(file: string): string {
  return withoutByteOrderMark(readCliFile(file).toString('utf8'));
}

/** A record given as JSON on the command line (--record), validated by the same schema as the admin API. */
export function parseJsonRecord<S extends z.ZodType>(schema: S, text: string, what: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest('invalid_json', `--record is not JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest('validation_failed', `the ${what} is invalid`, zodIssuesToFieldErrors(parsed.error, 'record'));
  return parsed.data;
}

export const importCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { file: string; org: string; format?: ImportFormat }>(
        'transactions <file>',
        'Import transactions from FILE.csv or FILE.jsonl: all lines or none',
        (c) =>
          c
            .positional('file', { type: 'string', demandOption: true })
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('format', { choices: ['csv', 'jsonl'] as const, describe: 'default: from the file extension' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const format =
              args.format ??
              (extname(args.file).toLowerCase() === '.csv' ? 'csv' : extname(args.file).toLowerCase() === '.jsonl' ? 'jsonl' : undefined);
            if (!format) throw new CliExit(2, 'cannot tell the format from the file name; pass --format csv|jsonl');
            const text = readInputFile(args.file);
            const progress = progressReporter('transactions');
            try {
              const result = await importTransactions(ctx, args.org, text, format, progress.update);
              progress.stop();
              output(args, result, () => `imported ${result.imported} transaction(s) into ${args.org} (import ${result.importId})`);
            } finally {
              progress.stop();
            }
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
