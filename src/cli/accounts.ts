/**
 * `borderd accounts`: create an account for an organization.
 *
 * @module cli/accounts
 */
import type { CommandModule } from 'yargs';
import { createAccount, newAccountSchema, presentAccount } from '../services/accounts.js';
import { output, runWithContext, withCommonOptions, type CommonArgs } from './context.js';
import { parseJsonRecord } from './import.js';

export const accountsCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org: string; record: string }>(
        'create',
        'Create an account from its JSON record ({"provider": "Standalone", "name": "…", "assets": [...], "fiats": [...]})',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('record', { type: 'string', demandOption: true, describe: 'the account as JSON' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const record = parseJsonRecord(newAccountSchema, args.record, 'account');
            const account = presentAccount(await createAccount(ctx, args.org, record), ctx.config.accounts.legacyFields);
            output(args, account, () => `created account ${account.id}`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
