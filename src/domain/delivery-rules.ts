/**
 * What an attempt's result means for its delivery: delivered (a 2xx), ends the webhook (a 410, or
 * the failed last attempt of its cycle), or retried, and when; and the label operators count it by.
 * Also the SQL expression of "succeeded", for the stores that count attempts in a statement.
 *
 * @module domain/delivery-rules
 */
import { cycleExhausted, nextAttempt, parseRetryAfter, type RetryPolicy } from './retry-schedule.js';

/** How an attempt that could not be signed starts its error: borderd's fault, not the endpoint's. */
export const SIGNING_FAILED = 'signing failed: ';
/** How the error of an attempt to a refused target (private, loopback or link-local) starts. */
export const REFUSED_ADDRESS = 'address refused: ';

/** What the rules read of one attempt's result: the endpoint's answer, or no answer and why. */
export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  /** The Retry-After of the answer, as received. */
  retryAfter?: string | undefined;
  /** Nothing was sent because of a fault on borderd's side (signing): never counted against the endpoint. */
  borderdFault?: boolean;
}

/** Whether an endpoint's answer counts as delivered: a 2xx, nothing else. */
export const delivered = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** The SQL of "this attempt succeeded" over a status column: the same 2xx as `delivered`. */
export const succeededSql = (statusColumn: string): string => `${statusColumn} >= 200 AND ${statusColumn} < 300`;

/** Whether an answer disables its webhook at once, whatever is left of the schedule: 410 Gone. */
export const gone = (statusCode: number | null): boolean => statusCode === 410;

/**
 * Whether a result disables the webhook: a 410, or the failed last attempt of its cycle; never
 * borderd's own fault (a signing failure backs off along the schedule but does not exhaust it).
 */
export function endsWebhook(policy: RetryPolicy, delivery: { step: number }, result: AttemptResult): boolean {
  return !delivered(result.statusCode) && !result.borderdFault && (gone(result.statusCode) || cycleExhausted(policy, delivery.step + 1));
}

/** What an attempt does to its delivery: delivered, failed for good (its webhook disabled), or retried later. */
export type AttemptVerdict = 'delivered' | 'failed' | 'retry';

export function attemptVerdict(policy: RetryPolicy, delivery: { step: number }, result: AttemptResult): AttemptVerdict {
  if (delivered(result.statusCode)) return 'delivered';
  return endsWebhook(policy, delivery, result) ? 'failed' : 'retry';
}

/** Whether the delivery is tried again after this attempt. */
export const retryable = (policy: RetryPolicy, delivery: { step: number }, result: AttemptResult): boolean =>
  attemptVerdict(policy, delivery, result) === 'retry';

/**
 * When the delivery is due again after this attempt: `now` when it is not retried (delivered, or
 * failed for good); else the schedule's next delay, stretched by a 429 or 503's Retry-After
 * (nextAttempt bounds it). borderd's own fault (the signing key could not be used) is not the
 * endpoint's: its step stays, so the endpoint keeps every attempt of its schedule for when signing
 * works again, while the wait still grows along the schedule by `signingFailuresInARow` (never
 * past its end).
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  delivery: { step: number },
  result: AttemptResult,
  now: number,
  random: () => number,
  signingFailuresInARow: number,
): number {
  if (!retryable(policy, delivery, result)) return now;
  const retryAfterMs = result.statusCode === 429 || result.statusCode === 503 ? parseRetryAfter(result.retryAfter, now) : undefined;
  const waitStep = result.borderdFault
    ? Math.min(delivery.step + signingFailuresInARow, policy.scheduleSeconds.length - 1)
    : delivery.step + 1;
  const decision = nextAttempt(policy, waitStep, random(), retryAfterMs);
  return decision.kind === 'retry' ? now + decision.delayMs : now;
}

/** What an attempt came to, in the few words operators count by (the `outcome` label of borderd_delivery_attempts_total). */
export type AttemptOutcomeLabel = 'success' | 'http_error' | 'timeout' | 'connect_error' | 'refused_address' | 'signing_error';

export function attemptOutcomeLabel(result: AttemptResult): AttemptOutcomeLabel {
  if (result.borderdFault) return 'signing_error';
  if (result.statusCode !== null) return delivered(result.statusCode) ? 'success' : 'http_error';
  if (result.error?.startsWith(REFUSED_ADDRESS)) return 'refused_address';
  if (result.error?.startsWith('TimeoutError') || result.error?.startsWith('UND_ERR_CONNECT_TIMEOUT')) return 'timeout';
  return 'connect_error';
}
