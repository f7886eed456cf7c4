/**
 * What makes an endpoint slow: its last send took delivery.slowAfterMs or longer, answered or not.
 * The dispatcher lets slow endpoints give way (delivery/dispatch/slow-endpoints.ts) and a webhook's
 * health reports the same judgement from its last recorded attempt, so the two never disagree.
 *
 * @module domain/slow-endpoint
 */

/** Whether a send that took `tookMs` makes its endpoint slow, under delivery.slowAfterMs. */
export function isSlowSend(tookMs: number, slowAfterMs: number): boolean {
  return tookMs >= slowAfterMs;
}
