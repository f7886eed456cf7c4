/**
 * Endpoints that answer slowly: a webhook whose last send was slow (domain/slow-endpoint.ts) is slow
 * until a send of it is quicker. Slow endpoints give way (send-slots.ts):
 * their sends together hold at most half of their organization's slots and half of the process's,
 * so a tenant's slow endpoints never fill what the endpoints that answer need.
 *
 * @module delivery/dispatch/slow-endpoints
 */
import { isSlowSend } from '../../domain/slow-endpoint.js';

export class SlowEndpoints {
  readonly #delivery: { readonly slowAfterMs: number };
  readonly #slow = new Set<string>();

  constructor(delivery: { readonly slowAfterMs: number }) {
    this.#delivery = delivery;
  }

  isSlow(webhookId: string): boolean {
    return this.#slow.has(webhookId);
  }

  /** A send of this webhook is over after `tookMs`. */
  heard(webhookId: string, tookMs: number): void {
    if (isSlowSend(tookMs, this.#delivery.slowAfterMs)) this.#slow.add(webhookId);
    else this.#slow.delete(webhookId);
  }

  /** Forgets the webhooks `idle` says have nothing in hand: the next sends say again. */
  forget(idle: (webhookId: string) => boolean): void {
    for (const id of this.#slow) if (idle(id)) this.#slow.delete(id);
  }

  /** The slow webhooks this process knows of now. */
  get slow(): ReadonlySet<string> {
    return this.#slow;
  }
}
