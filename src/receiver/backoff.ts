/**
 * Reconnect delays: exponential from `initialMs`, capped at `maxMs`, with "equal jitter" (half the
 * delay fixed, half random) so that receivers cut off together do not all come back in the same
 * millisecond. `failures` counts the failed connections in a row (0 for the first retry).
 *
 * @module receiver/backoff
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 15_000 };

/** `random` is a value in [0, 1) (injected for tests). */
export function backoffDelay(failures: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: number = Math.random()): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, Math.min(failures, 30)));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
