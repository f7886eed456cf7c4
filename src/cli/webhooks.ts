/**
 * `borderd webhooks`: operator view of every organization's webhooks and their health.
 *
 * @module cli/webhooks
 */
import type { CommandModule } from 'yargs';
import { disableWebhook, enableWebhook, getPublicKey, listWebhooksWithHealth, setOrdering } from '../services/webhooks.js';
import { WEBHOOK_ORDERINGS, type WebhookOrdering } from '../store/webhooks.js';
import { parseTimeOption } from './time-option.js';
import { output, runWithContext, table, withCommonOptions, type CommonArgs } from './context.js';

export const webhooksCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org?: string }>(
        'list',
        'List webhooks with last success, failures in a row and pending count',
        (c) => c.option('org', { type: 'string', describe: 'only this organization' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const rows = await listWebhooksWithHealth(ctx, args.org);
            output(args, rows, () =>
              table(
                rows.map((r) => ({ ...r, signatureSchemes: r.signatureSchemes.join(' ') })),
                [
                  'id',
                  'orgId',
                  'url',
                  'enabled',
                  'ordering',
                  'signatureSchemes',
                  'lastSuccessAt',
                  'failuresInARow',
                  'pending',
                  'disabledAt',
                  'disabledReason',
                ],
              ),
            );
          }),
      )
      .command<CommonArgs & { id: string; replaySince?: string }>(
        'enable <id>',
        'Re-enable a webhook; --replay-since also requeues its events since then (skipped ones included)',
        (c) =>
          c
            .positional('id', { type: 'string', demandOption: true })
            .option('replay-since', { type: 'string', describe: 'ISO 8601 time, or a duration ago (10m, 2h, 7d)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const since = args.replaySince === undefined ? undefined : parseTimeOption('replay-since', args.replaySince);
            const result = await enableWebhook(ctx, args.id, since);
            output(
              args,
              result,
              () =>
                `enabled ${result.webhook.id}${result.replay ? `; requeued ${result.replay.requeued} deliveries of ${result.replay.events} events` : ''}`,
            );
          }),
      )
      .command<CommonArgs & { id: string }>(
        'disable <id>',
        'Disable a webhook; its pending deliveries are kept as skipped',
        (c) => c.positional('id', { type: 'string', demandOption: true }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const webhook = await disableWebhook(ctx, args.id, 'borderd webhooks disable');
            output(args, webhook, () => `disabled ${webhook.id}`);
          }),
      )
      .command<CommonArgs & { id: string; ordering: WebhookOrdering }>(
        'ordering <id> <ordering>',
        "Set the order a webhook's deliveries go out in: none, resource (each resource's events in commit order) or webhook (all in commit order)",
        (c) =>
          c
            .positional('id', { type: 'string', demandOption: true })
            .positional('ordering', { choices: WEBHOOK_ORDERINGS, demandOption: true }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const webhook = await setOrdering(ctx, args.id, args.ordering);
            output(args, webhook, () => `${webhook.id} ordering ${webhook.ordering}`);
          }),
      )
      .command<CommonArgs & { org: string }>(
        'public-key',
        "Print an organization's current public signing key (PEM), what its receivers verify x-signature with",
        (c) => c.option('org', { type: 'string', demandOption: true, describe: 'organization id (org_…)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const key = await getPublicKey(ctx, args.org);
            output(args, key, () => key.publicKey.trimEnd());
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
