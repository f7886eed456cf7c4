/**
 * Retention: keeps the outbox and the card-network notifications from growing without bound.
 * Delivered deliveries go after retention.deliveredDays, whole events (nothing pending) after
 * retention.eventDays, test events (nothing pending) after retention.testEventHours; notifications
 * decrypted or failed after retention.inboundDays, and those for an ica still unmapped after
 * retention.unmatchedInboundDays (queued ones stay); the answers kept for Idempotency-Keys once they
 * expire (server.idempotencyKeyHours). A replay or stream resume cannot reach past what was pruned;
 * docs/webhooks.md and docs/inbound.md say so.
 *
 * @module jobs/retention
 */
import { schedule, type ScheduledTask } from 'node-cron';
import type { Db } from '../db/database.js';
import type { AppContext } from '../context.js';
import { DAY_MS, isoAt } from '../domain/clock.js';
import { claimJobRun, endJobRun } from '../store/job-runs.js';
import { deleteDeliveredBefore, deleteEventsBefore, deleteTestEventsBefore } from '../store/retention.js';
import { deleteInboundEvents, type InboundDeletion } from '../store/inbound-events.js';
import { deleteExpiredKeys } from '../store/idempotency-keys.js';
import type { Worker } from '../worker.js';

export interface PruneResult {
  deliveriesDeleted: number;
  eventsDeleted: number;
  deliveredBefore: string;
  eventsBefore: string;
  testEventsDeleted: number;
  testEventsBefore: string;
  inboundDeleted: number;
  inboundBefore: string;
  unmatchedInboundBefore: string;
  idempotencyKeysDeleted: number;
  /** Idempotency-Keys that expired before this are deleted. */
  idempotencyKeysBefore: string;
}

type Phase = 'deliveries' | 'testEvents' | 'events' | InboundDeletion['state'] | 'idempotency-keys' | 'done';
const INBOUND_PHASES = ['decrypted', 'failed', 'unmatched'] as const;

/** One pruning pass: deliveries, test events, events, notifications, then expired Idempotency-Keys, a batch at a time. */
class Pruning {
  readonly result: PruneResult;
  #phase: Phase = 'deliveries';

  constructor(private readonly ctx: AppContext) {
    const { deliveredDays, eventDays, testEventHours, inboundDays, unmatchedInboundDays } = ctx.config.retention;
    const now = ctx.clock.now();
    this.result = {
      deliveriesDeleted: 0,
      eventsDeleted: 0,
      deliveredBefore: isoAt(now - deliveredDays * DAY_MS),
      eventsBefore: isoAt(now - eventDays * DAY_MS),
      testEventsDeleted: 0,
      testEventsBefore: isoAt(now - (testEventHours * DAY_MS) / 24),
      inboundDeleted: 0,
      inboundBefore: isoAt(now - inboundDays * DAY_MS),
      unmatchedInboundBefore: isoAt(now - unmatchedInboundDays * DAY_MS),
      idempotencyKeysDeleted: 0,
      idempotencyKeysBefore: isoAt(now),
    };
  }

  get done(): boolean {
    return this.#phase === 'done';
  }

  /** The next batch's deletions, in the transaction `db`: at most retention.batchSize rows of one kind. */
  async step(db: Db): Promise<void> {
    const { batchSize } = this.ctx.config.retention;
    if (this.#phase === 'deliveries') {
      const n = await deleteDeliveredBefore(db, this.result.deliveredBefore, batchSize);
      this.result.deliveriesDeleted += n;
      if (n === 0) this.#phase = 'testEvents';
    } else if (this.#phase === 'testEvents') {
      const n = await deleteTestEventsBefore(db, this.result.testEventsBefore, batchSize);
      this.result.testEventsDeleted += n;
      if (n === 0) this.#phase = 'events';
    } else if (this.#phase === 'events') {
      const n = await deleteEventsBefore(db, this.result.eventsBefore, batchSize);
      this.result.eventsDeleted += n;
      if (n === 0) this.#phase = 'decrypted';
    } else if (this.#phase === 'idempotency-keys') {
      const n = await deleteExpiredKeys(db, Date.parse(this.result.idempotencyKeysBefore), batchSize);
      this.result.idempotencyKeysDeleted += n;
      if (n === 0) this.#phase = 'done';
    } else if (this.#phase !== 'done') {
      const state = this.#phase;
      const receivedBefore = state === 'unmatched' ? this.result.unmatchedInboundBefore : this.result.inboundBefore;
      const n = await deleteInboundEvents(db, { state, receivedBefore }, batchSize);
      this.result.inboundDeleted += n;
      if (n === 0) this.#phase = INBOUND_PHASES[INBOUND_PHASES.indexOf(state) + 1] ?? 'idempotency-keys';
    }
  }
}

/** The whole pruning at once, each batch its own transaction: `borderd outbox prune`, a process of its own. */
export async function pruneOutbox(ctx: AppContext): Promise<PruneResult> {
  const pruning = new Pruning(ctx);
  // Deleting old rows again after a power cut is harmless: no fsync per batch.
  while (!pruning.done) await ctx.db.transaction((tx) => pruning.step(tx), { durability: 'bookkeeping' });
  return pruning.result;
}

/** How soon a batch that found the write lock held by another process tries again. */
const BUSY_RETRY_MS = 50;

/**
 * The same pruning inside the daemon, one batch per turn of the event loop. Done in one go, a day's
 * million delivered rows would hold the daemon's main thread for seconds, every request and send
 * with it (docs/webhooks.md, "A long history"); here each batch is one short transaction
 * (retention.batchSize rows), and requests and sends run between them. A write lock another process
 * holds is waited for on a timer, not in SQLite's busy wait; after database.busyTimeoutMs of
 * waiting for one batch the pass fails, to run again at its next schedule. `stopped` ends it
 * between two batches.
 */
export async function pruneOutboxInTurns(ctx: AppContext, stopped: () => boolean = () => false): Promise<PruneResult> {
  const pruning = new Pruning(ctx);
  let waitedMs = 0;
  while (!pruning.done && !stopped()) {
    const attempt = await ctx.db.tryTransaction((tx) => pruning.step(tx), { durability: 'bookkeeping' });
    if (attempt.ok) {
      waitedMs = 0;
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    if (waitedMs >= ctx.config.database.busyTimeoutMs) throw attempt.err;
    await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    waitedMs += BUSY_RETRY_MS;
  }
  return pruning.result;
}

/**
 * A run holds the job for this long at most: a node that dies in the middle keeps the others from it
 * until then. The next scheduled run comes a day later by default, so an hour loses nothing.
 */
const RUN_LEASE_MS = 60 * 60_000;
/** After a run, the other nodes' timers of the same minute pass it by. */
const AFTER_RUN_MS = 60_000;

/**
 * The retention job as a worker of `borderd serve`, on its cron schedule. Every node has the timer;
 * the first to take the run (the job_runs row, as `nodeId`) prunes, the others pass.
 */
export function retentionWorker(ctx: AppContext, nodeId: string): Worker {
  let task: ScheduledTask | undefined;
  let stopped = false;
  let running: Promise<unknown> | undefined;
  return {
    name: 'retention',
    start() {
      task = schedule(
        ctx.config.retention.schedule,
        async () => {
          running = onOneNode(ctx, 'retention', nodeId, () => pruneOutboxInTurns(ctx, () => stopped)).then(
            (result) => result && ctx.log.info(result, 'outbox retention pass'),
            (err: unknown) => ctx.log.error({ err }, 'outbox retention pass failed'),
          );
          await running;
        },
        { name: 'outbox-retention', noOverlap: true },
      );
    },
    async stop() {
      stopped = true;
      await task?.destroy();
      await running;
    },
  };
}

/** Runs `fn` when this node takes the job's run; undefined when another node holds it. */
export async function onOneNode<T>(ctx: AppContext, job: string, nodeId: string, fn: () => Promise<T>): Promise<T | undefined> {
  const now = ctx.clock.now();
  if (!(await claimJobRun(ctx.db, job, nodeId, now, now + RUN_LEASE_MS))) return undefined;
  try {
    return await fn();
  } finally {
    await endJobRun(ctx.db, job, nodeId, ctx.clock.now() + AFTER_RUN_MS);
  }
}
