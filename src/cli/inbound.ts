/**
 * `borderd inbound`: card-network notifications received (list, show, retry) and ica mappings.
 *
 * @module cli/inbound
 */
import type { CommandModule } from 'yargs';
import { listMappings, mapIca, unmapIca } from '../inbound/ica-mapping.js';
import { listInbound, PURGEABLE_STATES, purgeInbound, retryInbound, showInbound } from '../inbound/event-queue.js';
import { parseTimeOption } from './time-option.js';
import { INBOUND_STATES, type InboundState } from '../store/inbound-events.js';
import { CliExit, output, runWithContext, table, wholeNumber, withCommonOptions, type CommonArgs } from './context.js';

export const inboundCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { state?: InboundState; eventType?: string; limit: number; startingAfter?: string }>(
        'list',
        'List received notifications, oldest first',
        (c) =>
          c
            .option('state', { choices: INBOUND_STATES, describe: 'only this state' })
            .option('event-type', { type: 'string', describe: 'only this eventType' })
            .option('limit', { type: 'number', default: 100, coerce: wholeNumber('limit', 1, 1_000_000), describe: 'most rows to print' })
            .option('starting-after', { type: 'string', describe: 'id (inb_…) to page after' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const rows = await listInbound(ctx, {
              state: args.state,
              eventType: args.eventType,
              limit: args.limit,
              startingAfter: args.startingAfter,
            });
            output(args, rows, () =>
              table(rows, ['id', 'eventId', 'eventType', 'ica', 'organizationId', 'state', 'attempts', 'failureCode', 'receivedAt']),
            );
          }),
      )
      .command<CommonArgs & { eventId: string; ica?: string }>(
        'show <eventId>',
        'Show one notification with its decrypted payload',
        (c) =>
          c
            .positional('eventId', { type: 'string', demandOption: true })
            .option('ica', { type: 'string', describe: 'the ica of the notification, when several icas sent this eventId' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const event = await showInbound(ctx, args.eventId, args.ica);
            output(args, event, () => {
              // The replaced and held copies are lists of records: tables of their own, not "key: value" lines.
              const { payload, replacedCopies, heldCopies, ...meta } = event;
              const lines = Object.entries(meta).map(([k, v]) => `${k}: ${v ?? '-'}`);
              const replaced = table(replacedCopies, [
                'seq',
                'failureCode',
                'failureReason',
                'kid',
                'attempts',
                'receivedAt',
                'replacedAt',
              ]);
              const held = table(heldCopies, ['seq', 'eventType', 'eventCreatedDate', 'receivedAt']);
              const shownPayload = payload === null ? '(not decrypted)' : JSON.stringify(payload, null, 2);
              return [...lines, 'replacedCopies:', replaced, 'heldCopies:', held, 'payload:', shownPayload].join('\n');
            });
          }),
      )
      .command<CommonArgs & { eventId?: string; ica?: string; failed: boolean }>(
        'retry [eventId]',
        'Requeue a failed notification (or every failed one with --failed) for decryption',
        (c) =>
          c
            .positional('eventId', { type: 'string' })
            .option('ica', { type: 'string', describe: 'the ica of the notification, when several icas sent this eventId' })
            .option('failed', { type: 'boolean', default: false, describe: 'every notification in the failed state' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            if (!args.eventId === !args.failed) throw new CliExit(2, 'name one EVENT_ID or pass --failed');
            const result = await retryInbound(ctx, args.eventId ? { eventId: args.eventId, ica: args.ica } : { allFailed: true });
            output(
              args,
              result,
              () => `requeued ${result.requeued} notification(s); a running borderd serve decrypts them within inbound.pollIntervalMs`,
            );
          }),
      )
      .command<CommonArgs & { state: (typeof PURGEABLE_STATES)[number]; before?: string; ica?: string }>(
        'purge',
        'Delete the notifications of one state (unmatched, failed or decrypted), with their held and replaced copies',
        (c) =>
          c
            .option('state', { choices: PURGEABLE_STATES, demandOption: true, describe: 'the state whose notifications go' })
            .option('before', { type: 'string', describe: 'only those received before: ISO 8601 or a duration ago (7d)' })
            .option('ica', { type: 'string', describe: 'only those of this ica' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const before = args.before === undefined ? undefined : parseTimeOption('before', args.before);
            const result = await purgeInbound(ctx, { state: args.state, before, ica: args.ica });
            output(args, result, () => `deleted ${result.deleted} ${args.state} notification(s)`);
          }),
      )
      .command<CommonArgs & { ica: string; org: string }>(
        'map-ica <ica>',
        'Map an ica to an organization; its unmatched notifications are queued',
        (c) =>
          c
            .positional('ica', { type: 'string', demandOption: true })
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const result = await mapIca(ctx, args.ica, args.org);
            output(
              args,
              result,
              () =>
                `ica ${args.ica} -> ${result.mapping.organizationId} (${result.mapping.source}); ${result.requeued} waiting notification(s) queued`,
            );
          }),
      )
      .command<CommonArgs & { ica: string }>(
        'unmap-ica <ica>',
        'Remove a database ica mapping (config mappings live in the config file)',
        (c) => c.positional('ica', { type: 'string', demandOption: true }),
        (args) =>
          runWithContext(args, async (ctx) => {
            await unmapIca(ctx, args.ica);
            output(args, { ica: args.ica, removed: true }, () => `removed mapping of ica ${args.ica}`);
          }),
      )
      .command<CommonArgs>(
        'icas',
        'List ica mappings (config and database)',
        (c) => c,
        (args) =>
          runWithContext(args, async (ctx) => {
            const rows = await listMappings(ctx);
            output(args, rows, () => table(rows, ['ica', 'organizationId', 'source', 'createdAt']));
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};
