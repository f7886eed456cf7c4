/**
 * `borderd outbox`: what waits, what failed, every attempt, and replays.
 *
 * @module cli/outbox
 */
import { parseTimeOption } from './time-option.js';
import cliProgress from 'cli-progress';
import type { CommandModule } from 'yargs';
import { listOutbox, outboxStatus, replayEvent, replayWebhookSince } from '../services/outbox.js';
import { anyDeliveryWithAttempts } from '../services/webhook-deliveries.js';
import { DELIVERY_STATES, type DeliveryState } from '../store/deliveries.js';
import { pruneOutbox } from '../jobs/retention.js';
import { blockedLines, releaseAnyDelivery, type Release } from '../services/delivery-order.js';
import { CliExit, databaseWords, output, runWithContext, table, wholeNumber, withCommonOptions, type CommonArgs } from './context.js';

/** The same listing's next page, as a command to paste: the filters, then the cursor. */
function nextPageCommand(args: CommonArgs & { state?: string; webhook?: string; since?: string; limit: number }, lastId: string): string {
  const words = ['borderd outbox list', ...databaseWords(args)];
  if (args.state !== undefined) words.push(`--state ${args.state}`);
  if (args.webhook !== undefined) words.push(`--webhook ${args.webhook}`);
  // The time a duration stood for: "1h" would move with the clock between pages.
  if (args.since !== undefined) words.push(`--since ${args.since}`);
  words.push(`--limit ${args.limit}`, `--starting-after ${lastId}`);
  return words.join(' ');
}

export const outboxCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs>(
        'prune',
        'Run the retention job once (retention.deliveredDays, retention.eventDays)',
        (c) => c,
        (args) =>
          runWithContext(args, async (ctx) => {
            const result = await pruneOutbox(ctx);
            output(
              args,
              result,
              () =>
                `deleted ${result.deliveriesDeleted} delivered deliveries (before ${result.deliveredBefore}), ${result.testEventsDeleted} test events (before ${result.testEventsBefore}) and ${result.eventsDeleted} events (before ${result.eventsBefore})`,
            );
          }),
      )
      .command<CommonArgs>(
        'status',
        'Delivery counts by state',
        (c) => c,
        (args) =>
          runWithContext(args, async (ctx) => {
            const counts = await outboxStatus(ctx);
            output(args, counts, () =>
              table(
                Object.entries(counts).map(([state, count]) => ({ state, count })),
                ['state', 'count'],
              ),
            );
          }),
      )
      .command<CommonArgs & { state?: DeliveryState; webhook?: string; since?: string; startingAfter?: string; limit: number }>(
        'list',
        'List deliveries, newest first, a page at a time',
        (c) =>
          c
            .option('state', { choices: DELIVERY_STATES, describe: 'only deliveries in this state' })
            .option('webhook', { type: 'string', describe: 'only this webhook (whk_…)' })
            .option('since', { type: 'string', describe: 'only those created since: ISO 8601 or a duration ago (1h, 7d)' })
            .option('limit', {
              type: 'number',
              default: 100,
              coerce: wholeNumber('limit', 1, 1_000_000),
              describe: 'most rows to print',
            })
            .option('starting-after', { type: 'string', describe: 'the next page: deliveries older than this one (dlv_…)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const since = args.since === undefined ? undefined : parseTimeOption('since', args.since);
            const page = await listOutbox(ctx, {
              state: args.state,
              webhookId: args.webhook,
              since,
              startingAfter: args.startingAfter,
              limit: args.limit,
            });
            output(args, page, () => {
              // A delivered, failed, skipped or cancelled row has no next attempt, whatever its column last held.
              const shown = page.data.map((d) => ({ ...d, nextAttemptAt: d.state === 'pending' ? d.nextAttemptAt : undefined }));
              const rows = table(shown, [
                'id',
                'eventId',
                'webhookId',
                'state',
                'attempts',
                'createdAt',
                'nextAttemptAt',
                'lastStatus',
                'lastError',
              ]);
              return page.hasMore ? `${rows}\nmore: ${nextPageCommand({ ...args, since }, page.data.at(-1)!.id)}` : rows;
            });
            // --print's lines are for a script; the person running it still learns that the page is not the last.
            if (args.print !== undefined && page.hasMore)
              process.stderr.write(`borderd: more: ${nextPageCommand({ ...args, since }, page.data.at(-1)!.id)}\n`);
          }),
      )
      .command<CommonArgs & { id: string }>(
        'attempts <id>',
        'Every attempt of one delivery',
        (c) => c.positional('id', { type: 'string', demandOption: true }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const result = await anyDeliveryWithAttempts(ctx, args.id);
            output(
              args,
              result,
              () =>
                `${result.delivery.id} ${result.delivery.state}\n` +
                table(result.attempts, ['attempt', 'startedAt', 'durationMs', 'statusCode', 'error', 'responseBody']),
            );
          }),
      )
      .command<CommonArgs & { webhook?: string; since?: string; event?: string }>(
        'replay',
        'Requeue events: --webhook ID --since TIME, or --event ID (same event ids and bodies)',
        (c) =>
          c
            .option('webhook', { type: 'string', describe: 'webhook id (whk_…), with --since' })
            .option('since', { type: 'string', describe: 'ISO 8601 time or a duration ago (1h, 7d), with --webhook' })
            .option('event', { type: 'string', describe: 'event id (evt_…): to every enabled webhook of its organization' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            if (args.event && !args.webhook && !args.since) {
              const result = await replayEvent(ctx, args.event);
              output(args, result, () => `requeued ${result.requeued} deliveries of event ${args.event}`);
              return;
            }
            if (!args.webhook || !args.since || args.event) throw new CliExit(2, 'use either --webhook ID --since TIME, or --event ID');
            const bar =
              !args.json && process.stderr.isTTY
                ? new cliProgress.SingleBar({ stream: process.stderr }, cliProgress.Presets.shades_classic)
                : undefined;
            const result = await replayWebhookSince(ctx, args.webhook, parseTimeOption('since', args.since), (done, total) => {
              if (!bar) return;
              if (done <= 500) bar.start(total, 0);
              bar.update(done);
            });
            bar?.stop();
            output(args, result, () => `requeued ${result.requeued} deliveries of ${result.events} events`);
          }),
      )
      .command<CommonArgs & { org?: string; webhook?: string }>(
        'blocked',
        'Ordered lines held by a failing head: the head delivery and how many wait behind it',
        (c) =>
          c
            .option('org', { type: 'string', describe: 'only this organization (org_…)' })
            .option('webhook', { type: 'string', describe: 'only this webhook (whk_…)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const lines = await blockedLines(ctx, { orgId: args.org, webhookId: args.webhook });
            output(args, lines, () =>
              table(lines, ['webhookId', 'resource', 'headId', 'attempts', 'lastStatus', 'lastError', 'nextAttemptAt', 'waiting']),
            );
          }),
      )
      .command(releaseCommand('skip', 'skipped', 'kept as skipped, a replay sends it again'))
      .command(releaseCommand('cancel', 'cancelled', 'cancelled, never sent'))
      .demandCommand(1),
  handler: () => undefined,
};

/** `outbox skip <id>` and `outbox cancel <id>`: a pending delivery out of its line, releasing what waits behind it. */
function releaseCommand(verb: string, state: Release, what: string): CommandModule<CommonArgs, CommonArgs & { id: string }> {
  return {
    command: `${verb} <id>`,
    describe: `Take a pending delivery out of its line unsent (${what}); on an ordered webhook the ones behind it go`,
    builder: (c) => c.positional('id', { type: 'string', demandOption: true }) as never,
    handler: (args) =>
      runWithContext(args, async (ctx) => {
        const delivery = await releaseAnyDelivery(ctx, args.id, state);
        output(args, delivery, () => `${state} ${delivery.id}`);
      }),
  };
}
