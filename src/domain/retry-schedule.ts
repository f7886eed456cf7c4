/**
 * When the next attempt of a delivery happens. `schedule[n]` is the delay before attempt n + 1
 * (attempt 1 is the first entry, normally 0 = immediately); a delivery has schedule.length attempts.
 *
 * @module domain/retry-schedule
 */
export interface RetryPolicy {
  scheduleSeconds: readonly number[];
  /** Fraction: 0.2 spreads each delay uniformly over ±20%. */
  jitter: number;
}

export type RetryDecision = { kind: 'retry'; delayMs: number } | { kind: 'exhausted' };

/** Whether a cycle with this many failed attempts has no retry left (the schedule has one entry per attempt). */
export function cycleExhausted(policy: RetryPolicy, attemptsInCycle: number): boolean {
  return attemptsInCycle >= policy.scheduleSeconds.length;
}

/**
 * After `attemptsInCycle` failed attempts, what comes next. `random` is a value in [0, 1) (injected
 * for tests). A Retry-After (ms) from a 429 or 503 is honoured, bounded to 1x..2x of the scheduled
 * delay so a receiver can slow borderd down but not stall a delivery for days.
 */
export function nextAttempt(policy: RetryPolicy, attemptsInCycle: number, random: number, retryAfterMs?: number): RetryDecision {
  if (cycleExhausted(policy, attemptsInCycle)) return { kind: 'exhausted' };
  const base = (policy.scheduleSeconds[attemptsInCycle] ?? 0) * 1000;
  const jittered = Math.round(base * (1 + policy.jitter * (2 * random - 1)));
  if (retryAfterMs !== undefined && retryAfterMs > 0) {
    return { kind: 'retry', delayMs: Math.min(Math.max(retryAfterMs, jittered), 2 * jittered) };
  }
  return { kind: 'retry', delayMs: Math.max(0, jittered) };
}

/**
 * The delay before a delivery's first attempt (after enqueue or replay): the schedule's first entry,
 * 0 (immediately) by default. Not jittered: it is set in the writer's transaction, and a fixed
 * first delay is what an operator who configures one expects.
 */
export function firstAttemptDelayMs(scheduleSeconds: readonly number[]): number {
  return Math.max(0, (scheduleSeconds[0] ?? 0) * 1000);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
