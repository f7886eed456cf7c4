import { describe, expect, it } from 'vitest';
import { firstAttemptDelayMs, nextAttempt, parseRetryAfter } from '../../src/domain/retry-schedule.js';

const policy = { scheduleSeconds: [0, 5, 300, 1800], jitter: 0.2 };

describe('retry schedule', () => {
  it('takes the delay of the next step and stops after the last', () => {
    expect(nextAttempt(policy, 1, 0.5)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextAttempt(policy, 3, 0.5)).toEqual({ kind: 'retry', delayMs: 1_800_000 });
    expect(nextAttempt(policy, 4, 0.5)).toEqual({ kind: 'exhausted' });
  });

  it('takes the first entry as the delay before the first attempt', () => {
    expect(firstAttemptDelayMs([0, 5])).toBe(0);
    expect(firstAttemptDelayMs([30, 5])).toBe(30_000);
    expect(firstAttemptDelayMs([1.5])).toBe(1500);
  });

  it('spreads each delay by the jitter', () => {
    expect(nextAttempt(policy, 2, 0)).toEqual({ kind: 'retry', delayMs: 240_000 });
    expect(nextAttempt(policy, 2, 0.999999)).toEqual({ kind: 'retry', delayMs: 360_000 });
  });

  it('bounds Retry-After to 1x..2x of the scheduled delay', () => {
    expect(nextAttempt(policy, 1, 0.5, 7000)).toEqual({ kind: 'retry', delayMs: 7000 });
    expect(nextAttempt(policy, 1, 0.5, 1000)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextAttempt(policy, 1, 0.5, 86_400_000)).toEqual({ kind: 'retry', delayMs: 10_000 });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
