/**
 * Freshness of the default refund destination, computed at read time from when it was last set or
 * re-confirmed. "More than 30 days" is strict: exactly 30 days after verifiedAt is still fresh, one
 * millisecond later warns. The same holds for 90 days and isStaleReject.
 *
 * @module domain/refund-freshness
 */
import { DAY_MS } from './clock.js';

export const STALE_WARNING_DAYS = 30;
export const STALE_REJECT_DAYS = 90;

export interface RefundFreshness {
  isStaleWarning: boolean;
  isStaleReject: boolean;
}

export function refundFreshness(verifiedAtMs: number, nowMs: number): RefundFreshness {
  const age = nowMs - verifiedAtMs;
  return {
    isStaleWarning: age > STALE_WARNING_DAYS * DAY_MS,
    isStaleReject: age > STALE_REJECT_DAYS * DAY_MS,
  };
}
