/**
 * `borderd orgs` and `borderd clients`: organizations and their API clients.
 *
 * @module cli/orgs
 */
import type { CommandModule } from 'yargs';
import { createApiClient, createOrganization, revokeClient } from '../services/organizations.js';
import { listApiClients } from '../store/api-clients.js';
import { listOrganizations } from '../store/organizations.js';
import { output, runWithContext, table, withCommonOptions, type CommonArgs } from './context.js';

export const orgsCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { name: string }>(
        'create',
        'Create an organization',
        (c) => c.option('name', { type: 'string', demandOption: true, describe: 'display name' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const org = await createOrganization(ctx, args.name);
            output(args, org, () => `created organization ${org.id} (${org.name})`);
          }),
      )
      .command<CommonArgs>(
        'list',
        'List organizations',
        (c) => c,
        (args) =>
          runWithContext(args, async (ctx) => {
            const orgs = await listOrganizations(ctx.db);
            output(args, orgs, () => table(orgs, ['id', 'name', 'createdAt']));
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};

export const clientsCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org: string; pii?: 'all' | 'redacted'; name?: string; export: boolean }>(
        'create',
        'Create an API client; prints its secret once',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('pii', { choices: ['all', 'redacted'] as const, describe: 'the most PII this client may see (default all)' })
            .option('name', { type: 'string', describe: 'a name for the client' })
            .option('export', {
              type: 'boolean',
              default: false,
              describe: 'print `export BORDERD_CLIENT_ID=… BORDERD_CLIENT_SECRET=…` for eval: what receive, token and the examples read',
            }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const client = await createApiClient(ctx, { orgId: args.org, piiAccess: args.pii, name: args.name });
            if (args.export) {
              // Ids and secrets are [A-Za-z0-9_-]: nothing a shell would read otherwise.
              process.stdout.write(`export BORDERD_CLIENT_ID=${client.id} BORDERD_CLIENT_SECRET=${client.clientSecret}\n`);
              return;
            }
            output(args, client, () =>
              [
                `created client ${client.id} for ${client.orgId} (piiAccess ${client.piiAccess})`,
                `clientSecret: ${client.clientSecret}`,
                'The secret is shown only now; store it safely.',
              ].join('\n'),
            );
          }),
      )
      .command<CommonArgs & { org?: string }>(
        'list',
        'List API clients',
        (c) => c.option('org', { type: 'string', describe: 'only this organization' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const clients = await listApiClients(ctx.db, args.org);
            output(args, clients, () => table(clients, ['id', 'orgId', 'piiAccess', 'createdAt', 'revokedAt']));
          }),
      )
      .command<CommonArgs & { id: string }>(
        'revoke <id>',
        'Revoke an API client: its tokens stop working at once',
        (c) => c.positional('id', { type: 'string', demandOption: true }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const client = await revokeClient(ctx, args.id);
            output(args, client, () => `revoked client ${client.id}`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
