/**
 * Recording send results: every result that finished within a few milliseconds goes into one
 * transaction (its attempt row, then the delivery's new state, only under our lease), with the
 * signatures made and not stored yet; what a result does to its row (delivered, retried when, or
 * failed for good, which disables the webhook); and a row changed while its attempt was in flight.
 *
 * @module delivery/dispatch/record
 */
import type { AppContext } from '../../context.js';
import { isDatabaseUnavailable, isTransientConflict, type Db, type TransactionOptions } from '../../db/database.js';
import { isoAt } from '../../domain/clock.js';
import { newId } from '../../domain/ids.js';
import {
  attemptOutcomeLabel,
  attemptVerdict,
  gone,
  nextAttemptAt,
  SIGNING_FAILED,
  type AttemptVerdict,
} from '../../domain/delivery-rules.js';
import type { RetryPolicy } from '../../domain/retry-schedule.js';
import type { DeliveryState } from '../../store/deliveries.js';
import { finishAttempt, finishAttempts, holdLineBehind, leaseOf, type DeliveryAfterAttempt } from '../../store/delivery-results.js';
import { insertAttempt, insertAttempts, trailingAttemptsFailedWith, type AttemptRecord } from '../../store/delivery-attempts.js';
import { storeSignature, storeSignatures } from '../../store/event-signatures.js';
import { lockWebhooks } from '../../store/webhooks.js';
import { withAttemptSignatures, type EventSignatures } from '../event-signatures.js';
import { disableWebhook } from '../webhook-state.js';
import type { Job, Sent } from './job.js';

/** Results are recorded together: at most this many per transaction, written at once when it holds them. */
export const FLUSH_BATCH = 64;
/**
 * The longest a result of an unordered webhook waits for others to share its transaction. A commit
 * costs the database its round trips and writes every page it touched to the WAL (the delivery rows
 * and their indexes, the attempts and theirs) however many results it holds, so a batch waits until
 * it is whole or this has passed since its first result: a node's part of the sends shrinks as nodes
 * are added, and a batch cut sooner would shrink with it. The results' sends are over and their
 * slots and claims free, so it holds up no send.
 */
export const FLUSH_DELAY_MS = 100;
/** The wait with a result of an ordered webhook in the batch: the row behind it in its line is claimed only once it is recorded. */
export const ORDERED_FLUSH_DELAY_MS = 4;
/** How soon results that found the write lock held (another process) are tried again. */
export const BUSY_RETRY_MS = 20;
/** How soon results are written again while the database cannot be reached. */
const UNAVAILABLE_RETRY_MS = 500;

/**
 * What a recorded result logs, once its transaction committed. A delivered attempt is a debug line:
 * it is already an attempt row and a metric, and an info line per delivery would cost every send a
 * serialized line and a write on the main thread. A failure is a warning.
 */
interface RecordedLine {
  line: Record<string, unknown>;
  msg: string;
  level: 'debug' | 'warn';
}

export interface RecorderOptions {
  /** The lease owner whose rows these are. */
  owner: string;
  policy: RetryPolicy;
  /** [0, 1) source for retry jitter. */
  random: () => number;
  /** Where the signatures made and not stored yet are taken from, to be stored with each batch. */
  signatures: EventSignatures;
  /** Called for each result that disables its webhook once it is recorded (or could not be). */
  ended: (webhookId: string) => void;
}

/** What one result writes and logs (Recorder's #plan). */
interface Plan {
  job: Job;
  verdict: AttemptVerdict;
  ok: boolean;
  gone: boolean;
  borderdFault: boolean | undefined;
  disable: boolean;
  common: { attempts: number; lastStatus: number | null; lastError: string | null; at: string };
  attempt: AttemptRecord;
  line: Record<string, unknown>;
  next(signingFailures: number): DeliveryAfterAttempt;
}

/** Results are bookkeeping: one lost to a power cut only means its delivery is sent again. */
const BOOKKEEPING: TransactionOptions = { durability: 'bookkeeping' };

export class Recorder {
  readonly #ctx: AppContext;
  readonly #owner: string;
  readonly #policy: RetryPolicy;
  readonly #random: () => number;
  readonly #signatures: EventSignatures;
  readonly #ended: (webhookId: string) => void;
  #finished: Sent[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  /** The flush timer is the short one (ORDERED_FLUSH_DELAY_MS). */
  #flushSoon = false;
  #stopping = false;

  constructor(ctx: AppContext, opts: RecorderOptions) {
    this.#ctx = ctx;
    this.#owner = opts.owner;
    this.#policy = opts.policy;
    this.#random = opts.random;
    this.#signatures = opts.signatures;
    this.#ended = opts.ended;
  }

  /** Results waiting to be recorded. */
  get waiting(): number {
    return this.#finished.length;
  }

  /** The dispatcher is stopping: a held write lock is waited for in SQLite's busy wait, since the stop waits for these results anyway. */
  stopping(): void {
    this.#stopping = true;
    // A stop waits for every result: a batch waiting for company goes now.
    if (this.#flushTimer) void this.flush();
  }

  /** A result to record with its batch (FLUSH_DELAY_MS; ORDERED_FLUSH_DELAY_MS for an ordered webhook's). */
  add(sent: Sent): void {
    this.#finished.push(sent);
    if (this.#finished.length >= FLUSH_BATCH) {
      clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
      setImmediate(() => void this.flush());
      return;
    }
    const soon = (sent.job.webhook.ordering ?? 'none') !== 'none';
    if (this.#flushTimer && (this.#flushSoon || !soon)) return;
    clearTimeout(this.#flushTimer);
    this.#flushSoon = soon;
    const wait = this.#stopping ? 0 : soon ? ORDERED_FLUSH_DELAY_MS : FLUSH_DELAY_MS;
    this.#flushTimer = setTimeout(() => void this.flush(), wait);
  }

  /** Records every result that arrived since the last flush in one transaction, then logs them. */
  async flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const batch = this.#finished;
    if (batch.length === 0) return;
    // Every signature made and not stored yet (a stream's too) goes into this transaction, and every
    // signature these attempts carried: the attempts view derives their x-signature from it.
    const signatures = this.#signatures.takeUnstored();
    const toStore = withAttemptSignatures(signatures, batch);
    this.#finished = [];
    const ctx = this.#ctx;
    let lines: RecordedLine[] = [];
    // The whole batch in one transaction first: two statements per result. If any write fails (its
    // row deleted meanwhile), that transaction rolls back and the batch is recorded again with each
    // result in its own savepoint, so the failing one is logged alone and the others are recorded.
    // A row whose result is lost keeps its lease and is sent again when the lease ends (at least once).
    let began = false;
    // The webhooks this batch disables are locked before any of their deliveries (lockWebhooks).
    const ending = batch.filter((f) => f.endsWebhook).map((f) => f.job.webhook.id);
    const writeAll = async (tx: Db): Promise<RecordedLine[]> => {
      began = true;
      await lockWebhooks(tx, ending);
      await storeSignatures(tx, toStore);
      return this.#recordBatch(tx, batch);
    };
    // While running, a held write lock (another process) is waited for on a timer; at a stop, in
    // SQLite's busy wait.
    const recordAll = async (): Promise<RecordedLine[] | undefined> => {
      if (this.#stopping) return ctx.db.transaction(writeAll, BOOKKEEPING);
      const attempt = await ctx.db.tryTransaction(writeAll, BOOKKEEPING);
      return attempt.ok ? attempt.value : undefined;
    };
    const recordEach = (): Promise<RecordedLine[]> =>
      ctx.db.transaction(async (tx) => {
        await lockWebhooks(tx, ending);
        for (const s of toStore) {
          const o = await tx.savepoint((sp) => storeSignature(sp, s.eventId, s.keyId, s.signature));
          if (!o.ok) ctx.log.warn({ err: o.err, eventId: s.eventId }, 'signature not stored');
        }
        const lines: RecordedLine[] = [];
        for (const f of batch) {
          const o = await tx.savepoint((sp) => this.#record(sp, f));
          if (o.ok) lines.push(o.value);
          else ctx.log.error({ err: o.err, deliveryId: f.job.id }, 'delivery bookkeeping failed');
        }
        return lines;
      }, BOOKKEEPING);
    try {
      let recorded: RecordedLine[] | undefined;
      let retryMs = BUSY_RETRY_MS;
      try {
        recorded = await recordAll();
      } catch (err) {
        if (isDatabaseUnavailable(err) && !this.#stopping) {
          // The database is away (its transaction rolled back): the results wait in memory like
          // those behind a held lock, so a send made just before an outage is recorded after it,
          // not sent again when its lease ends.
          retryMs = UNAVAILABLE_RETRY_MS;
        } else if (isTransientConflict(err) && !this.#stopping) {
          // PostgreSQL ended the batch's transaction in a deadlock on every run: it rolled back
          // whole, so the results wait in memory and are written a moment later.
        } else if (!began) {
          // Only a write that failed inside is retried alone; a transaction that could not start is reported as it is.
          throw err;
        } else recorded = await recordEach();
      }
      if (recorded === undefined) {
        // The write lock is held elsewhere: the results wait in memory (their rows stay leased and
        // renewed) and are written a little later, with whatever finished meanwhile.
        this.#finished = batch.concat(this.#finished);
        this.#signatures.giveBack(signatures);
        clearTimeout(this.#flushTimer);
        this.#flushTimer = setTimeout(() => void this.flush(), retryMs);
        return;
      }
      lines = recorded;
    } catch (err) {
      ctx.log.error({ err, deliveryIds: batch.map((f) => f.job.id) }, 'delivery bookkeeping failed');
    }
    for (const { line, msg, level } of lines) ctx.log[level](line, msg);
    const atMs = ctx.clock.now();
    for (const { job, result, endsWebhook } of batch) {
      ctx.signals.deliveryAttempted.emit({
        orgId: job.webhook.orgId,
        webhookId: job.webhook.id,
        eventId: job.eventId,
        outcome: attemptOutcomeLabel(result),
        durationMs: result.durationMs,
        atMs,
        disabledWebhook: endsWebhook,
      });
    }
    // Recorded (or not, then the database decides): the webhook's state is read from the database again.
    for (const f of batch) if (f.endsWebhook) this.#ended(f.job.webhook.id);
    for (const f of batch) f.done();
  }

  /**
   * Inside the flush transaction, the batch in three statements whatever its size: its attempt
   * rows, then every delivery's new state where the row is still ours, pending, at the step that
   * was sent (the usual case). Rows that changed meanwhile, results that disable a webhook, and
   * failed heads of resource lines (holdLineBehind) take a few more statements each. A signing failure's backoff counts the earlier ones (a read
   * per row): those rare results are recorded one by one.
   */
  async #recordBatch(db: Db, batch: readonly Sent[]): Promise<RecordedLine[]> {
    const now = this.#ctx.clock.now();
    const plans = batch.filter((f) => !f.result.borderdFault).map((f) => this.#plan(f, now));
    await insertAttempts(
      db,
      plans.map((p) => p.attempt),
    );
    const advanced = await finishAttempts(
      db,
      this.#owner,
      plans.map((p) => ({ id: p.job.id, ...p.next(0), expectStep: p.job.step, expectNextAttemptAt: p.job.nextAttemptAt })),
    );
    const lines: RecordedLine[] = [];
    for (const p of plans) lines.push(await this.#settle(db, p, advanced.has(p.job.id)));
    for (const f of batch) if (f.result.borderdFault) lines.push(await this.#record(db, f));
    return lines;
  }

  /** One result inside the flush transaction: its attempt row, then the delivery's new state, only under our lease. */
  async #record(db: Db, sent: Sent): Promise<RecordedLine> {
    const plan = this.#plan(sent, this.#ctx.clock.now());
    const { job, result } = sent;
    await insertAttempt(db, plan.attempt);
    const signingFailures = result.borderdFault ? await trailingAttemptsFailedWith(db, job.id, SIGNING_FAILED) : 0;
    // The usual case, in one statement: the row is still ours, pending, at the step that was sent.
    const advanced = await finishAttempt(db, job.id, this.#owner, plan.next(signingFailures), {
      state: 'pending',
      step: job.step,
      nextAttemptAt: job.nextAttemptAt,
    });
    return this.#settle(db, plan, advanced);
  }

  /** What a result writes and logs, decided before any statement. */
  #plan({ job, startedMs, result }: Sent, now: number): Plan {
    const at = isoAt(now);
    const attempt = job.attempts + 1;
    const verdict = attemptVerdict(this.#policy, job, result);
    const ok = verdict === 'delivered';
    const disable = verdict === 'failed';
    const common = { attempts: attempt, lastStatus: result.statusCode, lastError: result.error, at };
    return {
      job,
      verdict,
      ok,
      gone: gone(result.statusCode),
      borderdFault: result.borderdFault,
      disable,
      common,
      attempt: {
        id: newId('att', now),
        deliveryId: job.id,
        attempt,
        startedAt: isoAt(startedMs),
        durationMs: result.durationMs,
        statusCode: result.statusCode,
        error: result.error,
        responseBody: result.responseBody,
        keyId: job.keyId,
        // What the attempt stores of its headers, in compact JSON: the attempts view derives the others.
        requestHeaders: JSON.stringify(result.requestHeaders ?? {}),
      },
      line: {
        deliveryId: job.id,
        eventId: job.eventId,
        eventType: job.eventType,
        webhookId: job.webhook.id,
        orgId: job.webhook.orgId,
        attempt,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
      },
      /** The row's new state; `signingFailures`: this delivery's signing failures in a row, this one included. */
      next: (signingFailures: number) => ({
        ...common,
        state: verdict === 'retry' ? 'pending' : verdict,
        // A signing failure is not the endpoint's: its step stays (nextAttemptAt).
        step: result.borderdFault ? job.step : job.step + 1,
        nextAttemptAt: nextAttemptAt(this.#policy, job, result, now, this.#random, signingFailures),
        deliveredAt: ok ? at : null,
      }),
    };
  }

  /** After the row's update: a row that changed meanwhile, a webhook to disable, the line to log. */
  async #settle(db: Db, plan: Plan, advanced: boolean): Promise<RecordedLine> {
    const { job, ok, disable, line } = plan;
    if (!advanced) return this.#recordChanged(db, job, ok, line, plan.common);
    // A head of a resource line that will be retried: what waits behind it is not due before it.
    if (!ok && !disable && job.webhook.ordering === 'resource') await holdLineBehind(db, job.id);
    if (disable) {
      const reason = plan.gone ? 'endpoint answered 410 Gone' : `all ${this.#policy.scheduleSeconds.length} attempts failed`;
      await disableWebhook({ ...this.#ctx, db }, job.webhook.id, reason, plan.common.at);
    }
    const outcome = plan.verdict;
    if (ok) return { line: { ...line, outcome }, msg: 'delivery attempt', level: 'debug' };
    if (plan.borderdFault)
      return { line: { ...line, outcome }, msg: 'delivery not sent: signing failed (the endpoint is not penalized)', level: 'warn' };
    return {
      line: { ...line, outcome },
      msg: disable ? 'delivery failed for good; webhook disabled' : 'delivery attempt failed',
      level: 'warn',
    };
  }

  /** #record when the row changed while the attempt was in flight: its lease ended, or an operator moved it. */
  async #recordChanged(
    db: Db,
    job: Job,
    ok: boolean,
    line: Record<string, unknown>,
    common: { attempts: number; lastStatus: number | null; lastError: string | null; at: string },
  ): Promise<RecordedLine> {
    const row = await leaseOf(db, job.id);
    if (!row || row.claimedBy !== this.#owner) {
      // The lease ended and another dispatcher owns the row now: the attempt stays recorded, the row is theirs.
      return ok
        ? { line: { ...line, outcome: 'delivered', leaseLost: true }, msg: 'delivery attempt', level: 'debug' }
        : { line: { ...line, outcome: 'lease_lost' }, msg: 'delivery attempt failed', level: 'warn' };
    }
    // Disabled, deleted or replayed while in flight. A 2xx is what happened: delivered. A failure
    // leaves the row as the operator set it (skipped, cancelled, or a fresh replay cycle).
    const state: DeliveryState = ok ? 'delivered' : row.state;
    await finishAttempt(db, job.id, this.#owner, {
      ...common,
      state,
      step: row.step,
      nextAttemptAt: row.nextAttemptAt,
      deliveredAt: ok ? common.at : null,
    });
    return ok
      ? { line: { ...line, outcome: 'delivered' }, msg: 'delivery attempt', level: 'debug' }
      : { line: { ...line, outcome: row.state }, msg: 'delivery attempt failed', level: 'warn' };
  }
}
