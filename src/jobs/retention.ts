import { schedule, type ScheduledTask } from 'node-cron';
import { bookkeeping } from '../db/open.js';
import type { AppContext } from '../context.js';
import { DAY_MS, isoAt } from '../domain/clock.js';
import { deleteDeliveredBefore, deleteEventsBefore } from '../store/retention.js';
import type { Worker } from '../workers.js';

export interface PruneResult {
  deliveriesDeleted: number;
  eventsDeleted: number;
  deliveredBefore: string;
  eventsBefore: string;
}

/**
 * Keeps the outbox from growing without bound: delivered deliveries go after
 * retention.deliveredDays, whole events (nothing pending) after retention.eventDays. A replay or
 * stream resume cannot reach past what was pruned; docs/webhooks.md says so.
 */
export function pruneOutbox(ctx: AppContext): PruneResult {
  const { deliveredDays, eventDays, batchSize } = ctx.config.retention;
  const now = ctx.clock.now();
  const deliveredBefore = isoAt(now - deliveredDays * DAY_MS);
  const eventsBefore = isoAt(now - eventDays * DAY_MS);
  const result: PruneResult = { deliveriesDeleted: 0, eventsDeleted: 0, deliveredBefore, eventsBefore };
  // Deleting old rows again after a power cut is harmless: no fsync per batch.
  const inTx = <T>(fn: () => T): T => bookkeeping(ctx.db, () => ctx.db.transaction(fn).immediate());
  for (let n = -1; n !== 0; ) {
    n = inTx(() => deleteDeliveredBefore(ctx.db, deliveredBefore, batchSize));
    result.deliveriesDeleted += n;
  }
  for (let n = -1; n !== 0; ) {
    n = inTx(() => deleteEventsBefore(ctx.db, eventsBefore, batchSize));
    result.eventsDeleted += n;
  }
  return result;
}

/** The retention job as a worker of `borderd serve`, on its cron schedule. */
export function retentionWorker(ctx: AppContext): Worker {
  let task: ScheduledTask | undefined;
  return {
    name: 'retention',
    start() {
      task = schedule(
        ctx.config.retention.schedule,
        () => {
          try {
            const result = pruneOutbox(ctx);
            ctx.log.info(result, 'outbox retention pass');
          } catch (err) {
            ctx.log.error({ err }, 'outbox retention pass failed');
          }
        },
        { name: 'outbox-retention', noOverlap: true },
      );
    },
    async stop() {
      await task?.destroy();
    },
  };
}
