import type { CommandModule } from 'yargs';
import { createAccount, newAccountSchema, presentAccount } from '../services/accounts.js';
import { badRequest } from '../domain/errors.js';
import { zodIssuesToFieldErrors } from '../api/route.js';
import { output, runWithContext, withCommonOptions, type CommonArgs } from './context.js';

export const accountsCommand: CommandModule = {
  command: 'accounts',
  describe: 'Manage accounts (create)',
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org: string; record: string }>(
        'create',
        'Create an account from its JSON record ({"provider": "Standalone", "name": "…", "assets": [...], "fiats": [...]})',
        (c) => c.option('org', { type: 'string', demandOption: true }).option('record', { type: 'string', demandOption: true, describe: 'the account as JSON' }),
        (args) =>
          runWithContext(args, (ctx) => {
            let value: unknown;
            try {
              value = JSON.parse(args.record);
            } catch (err) {
              throw badRequest('invalid_json', `--record is not JSON: ${(err as Error).message}`);
            }
            const parsed = newAccountSchema.safeParse(value);
            if (!parsed.success) throw badRequest('validation_failed', 'the account is invalid', zodIssuesToFieldErrors(parsed.error, 'record'));
            const account = presentAccount(createAccount(ctx, args.org, parsed.data), ctx.config.accounts.legacyFields);
            output(args, account, () => `created account ${account.id}`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
