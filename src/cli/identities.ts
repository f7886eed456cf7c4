import type { CommandModule } from 'yargs';
import { createIdentity, importIdentities, newIdentitySchema } from '../services/identities.js';
import { badRequest } from '../domain/errors.js';
import { zodIssuesToFieldErrors } from '../api/route.js';
import { output, runWithContext, withCommonOptions, type CommonArgs } from './context.js';
import { progressReporter, readInputFile } from './import.js';

export const identitiesCommand: CommandModule = {
  command: 'identities',
  describe: 'Manage identities (import, create)',
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { file: string; org: string }>(
        'import <file>',
        'Import identities from a JSON-lines file: all lines or none',
        (c) => c.positional('file', { type: 'string', demandOption: true }).option('org', { type: 'string', demandOption: true, describe: 'organization id' }),
        (args) =>
          runWithContext(args, (ctx) => {
            const lines = readInputFile(args.file).split(/\r?\n/);
            const progress = progressReporter('identities');
            try {
              const result = importIdentities(ctx, args.org, lines, (done) => progress.update(done, lines.length));
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
        (c) => c.option('org', { type: 'string', demandOption: true }).option('record', { type: 'string', demandOption: true, describe: 'the identity as JSON' }),
        (args) =>
          runWithContext(args, (ctx) => {
            let value: unknown;
            try {
              value = JSON.parse(args.record);
            } catch (err) {
              throw badRequest('invalid_json', `--record is not JSON: ${(err as Error).message}`);
            }
            const parsed = newIdentitySchema.safeParse(value);
            if (!parsed.success) throw badRequest('validation_failed', 'the identity is invalid', zodIssuesToFieldErrors(parsed.error, 'record'));
            const identity = createIdentity(ctx, args.org, parsed.data);
            output(args, identity, () => `created identity ${identity.id}`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
