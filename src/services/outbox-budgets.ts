/**
 * What an organization's own token may ask of the outbox beyond its own events: replays and test
 * events make POSTs at a URL the organization chose, so each is budgeted. At most one replay in
 * progress per webhook; at most webhooks.replayEventsPerHour events queued by replay per
 * organization per hour; at most webhooks.testEventsPerMinute test events per organization per
 * minute. Past them a 429 problem with Retry-After, before anything is written. What is spent is
 * given back when the work throws, whatever the error, and when the transaction it ran in rolls
 * back afterwards (a request's Idempotency-Key transaction whose COMMIT fails), so only work that
 * committed keeps its tokens. The operator's CLI and admin API do not go through here. The budgets
 * live in this process's memory: each node keeps its own (docs/webhooks.md says so).
 *
 * @module services/outbox-budgets
 */
import type { Config } from '../config/schema.js';
import type { Db } from '../db/database.js';
import { HOUR_MS, type Clock } from '../domain/clock.js';
import { BorderdError, badRequest } from '../domain/errors.js';
import { FailureBudget } from '../domain/failure-budget.js';

/** How soon a replay refused because another runs for the same webhook is worth asking again. */
const REPLAY_IN_PROGRESS_RETRY_S = 1;

/**
 * A replay's charge against its organization's budget: called with the events it is about to
 * requeue, before anything is queued (throws the 429 when they do not fit); it answers a function
 * that gives back what was not queued after all (rows already pending, types the webhook filters out).
 */
export type ReplayCharge = (events: number) => (queued: number) => void;

const tooMany = (code: string, message: string, waitMs: number) =>
  new BorderdError(429, code, message, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) } });

export class OutboxBudgets {
  readonly #config: Config['webhooks'];
  readonly #clock: Clock;
  readonly #replaying = new Set<string>();
  readonly #replayEvents: FailureBudget;
  readonly #testEvents: FailureBudget;

  constructor(config: Config['webhooks'], clock: Clock) {
    this.#config = config;
    this.#clock = clock;
    this.#replayEvents = new FailureBudget(config.replayEventsPerHour, 10_000, HOUR_MS);
    this.#testEvents = new FailureBudget(config.testEventsPerMinute);
  }

  /**
   * Runs `replay` as the webhook's one replay in progress (another is a 429 replay_in_progress),
   * with the charge that counts its events against the organization's hourly budget. `db` is the
   * handle the replay writes through: when it is a transaction, its rollback gives the events back.
   */
  async replay<T>(db: Db, orgId: string, webhookId: string, replay: (charge: ReplayCharge) => Promise<T>): Promise<T> {
    // Keyed by organization too, so another organization's webhook id tells nothing of its replays.
    const key = `${orgId} ${webhookId}`;
    if (this.#replaying.has(key))
      throw tooMany(
        'replay_in_progress',
        `a replay to webhook ${webhookId} is in progress; one at a time per webhook`,
        REPLAY_IN_PROGRESS_RETRY_S * 1000,
      );
    this.#replaying.add(key);
    // The events this replay holds of the budget: charged, less what it gave back as not queued.
    let held = 0;
    const giveBack = (events: number): void => {
      if (events <= 0) return;
      held -= events;
      this.#replayEvents.refund(orgId, this.#clock.now(), events);
    };
    const charge: ReplayCharge = (events) => {
      this.#chargeReplay(orgId, events);
      held += events;
      return (queued) => giveBack(events - queued);
    };
    try {
      const result = await replay(charge);
      db.onRollback(() => giveBack(held));
      return result;
    } catch (err) {
      giveBack(held);
      throw err;
    } finally {
      this.#replaying.delete(key);
    }
  }

  /** Spends `events` of the organization's hourly budget, or throws why they do not fit. */
  #chargeReplay(orgId: string, events: number): void {
    const max = this.#config.replayEventsPerHour;
    if (events > max)
      throw badRequest(
        'replay_too_large',
        `this replay would queue ${events} events, more than the ${max} an organization may queue by replay per hour (webhooks.replayEventsPerHour); narrow it`,
        [{ path: 'body', message: `more than ${max} events` }],
      );
    const now = this.#clock.now();
    const waitMs = this.#replayEvents.waitMs(orgId, now, events);
    if (waitMs > 0)
      throw tooMany(
        'replay_budget_exhausted',
        `this replay would queue ${events} events; the organization's replays may queue ${max} an hour (webhooks.replayEventsPerHour), and fewer are left now`,
        waitMs,
      );
    // Spent before the replay runs, so replays of the organization's other webhooks at the same time cannot both fit.
    if (events > 0) this.#replayEvents.spend(orgId, now, events);
  }

  /**
   * One test event of the organization: counted now, given back when `send` throws (nothing of it
   * was written) or, when `db` is a transaction, when that transaction rolls back.
   */
  async testEvent<T>(db: Db, orgId: string, send: () => Promise<T>): Promise<T> {
    const now = this.#clock.now();
    const waitMs = this.#testEvents.waitMs(orgId, now);
    if (waitMs > 0)
      throw tooMany(
        'test_event_budget_exhausted',
        `the organization may send ${this.#config.testEventsPerMinute} test events a minute (webhooks.testEventsPerMinute)`,
        waitMs,
      );
    this.#testEvents.spend(orgId, now);
    const giveBack = (): void => this.#testEvents.refund(orgId, this.#clock.now());
    try {
      const result = await send();
      db.onRollback(giveBack);
      return result;
    } catch (err) {
      giveBack();
      throw err;
    }
  }
}
