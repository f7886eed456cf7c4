/**
 * `borderd identities`: import identities from JSON lines, or create one.
 *
 * @module cli/identities
 */
import type { CommandModule } from 'yargs';
import { createIdentity, importIdentities, newIdentitySchema } from '../services/identities.js';
import { output, runWithContext, withCommonOptions, type CommonArgs } from './context.js';
import { parseJsonRecord, progressReporter, readInputFile } from './import.js';

export const identitiesCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { file: string; org: string }>(
        'import <file>',
        'Import identities from a JSON-lines file: all lines or none',
        (c) =>
          c
            .positional('file', { type: 'string', demandOption: true })
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const lines = readInputFile(args.file).split(/\r?\n/);
            const progress = progressReporter('identities');
            try {
              const result = await importIdentities(ctx, args.org, lines, progress.update);
              progress.stop();
              output(args, result, () => `imported ${result.imported} identit${result.imported === 1 ? 'y' : 'ies'} into ${args.org}`);
            } finally {
              progress.stop();
            }
          }),
      )
      .command<CommonArgs & { org: string; record: string }>(
        'create',
        'Create one identity from its JSON record ({"type": "Personal", "data": {...}})',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('record', { type: 'string', demandOption: true, describe: 'the identity as JSON' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const record = parseJsonRecord(newIdentitySchema, args.record, 'identity');
            const identity = await createIdentity(ctx, args.org, record);
            output(args, identity, () => `created identity ${identity.id}`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
