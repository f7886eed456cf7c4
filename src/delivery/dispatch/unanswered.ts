/**
 * Endpoints that stopped answering: a webhook whose last send got no answer at all (a timeout, a
 * refused or reset connection) sends one at a time until an answer comes back, so an endpoint that
 * is down holds one of the process's send slots for each timeout instead of perEndpointConcurrency
 * of them. One answer gives it all of its slots back.
 *
 * @module delivery/dispatch/unanswered
 */
import type { Db } from '../../db/database.js';
import { lastRetryGotNoAnswer } from '../../store/delivery-results.js';
import { SIGNING_FAILED } from '../../domain/delivery-rules.js';

export class UnansweredEndpoints {
  readonly #db: Db;
  readonly #delivery: { readonly perEndpointConcurrency: number };
  readonly #unanswered = new Set<string>();
  /** Webhooks this process has looked at: on first sight, whether one answers is read from the database. */
  readonly #seen = new Set<string>();

  constructor(db: Db, delivery: { readonly perEndpointConcurrency: number }) {
    this.#db = db;
    this.#delivery = delivery;
  }

  /**
   * An endpoint that had stopped answering before this process started (a restart, another
   * daemon's sends) starts at one send at a time too, not with a burst of sends into the same
   * timeouts. Read once per webhook and process, before its first claim is sized, from its most
   * recently tried pending row (one index seek); after that, this process's own sends say.
   */
  async firstSight(webhookId: string): Promise<void> {
    if (this.#seen.has(webhookId)) return;
    this.#seen.add(webhookId);
    if (await lastRetryGotNoAnswer(this.#db, webhookId, SIGNING_FAILED)) this.#unanswered.add(webhookId);
  }

  /** Send slots a webhook may use now: one while its endpoint does not answer, else perEndpointConcurrency. */
  slotsOf(webhookId: string): number {
    return this.#unanswered.has(webhookId) ? 1 : this.#delivery.perEndpointConcurrency;
  }

  /** A send of this webhook is over: `statusCode` null is no answer at all. */
  heard(webhookId: string, statusCode: number | null): void {
    if (statusCode === null) this.#unanswered.add(webhookId);
    else this.#unanswered.delete(webhookId);
  }

  /**
   * Forgets the webhooks `idle` says have nothing in hand, so this holds the recently active
   * webhooks rather than every webhook since start; the next sight reads the database again,
   * which says the same.
   */
  forget(idle: (webhookId: string) => boolean): void {
    for (const id of this.#seen) {
      if (idle(id)) {
        this.#seen.delete(id);
        this.#unanswered.delete(id);
      }
    }
  }

  /** How many webhooks this keeps state for. */
  get tracked(): number {
    return this.#seen.size;
  }
}
