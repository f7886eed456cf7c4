/**
 * The coalescing of cross-node wake-ups (src/cluster/wakeups.ts): each notification reaches every
 * node, so a node raises its signal at most once per window however many notifications came, and
 * the last of a burst is always followed by a raise (no write's wake-up is lost).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesced, WAKE_WINDOW_MS } from '../../src/cluster/wakeups.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('coalesced wake-ups', () => {
  it('raise at once for the first notification, then once at the end of the window for a burst', () => {
    let raised = 0;
    const wake = coalesced(() => raised++, WAKE_WINDOW_MS);
    wake.call();
    expect(raised).toBe(1);
    for (let i = 0; i < 50; i++) wake.call();
    expect(raised).toBe(1);
    vi.advanceTimersByTime(WAKE_WINDOW_MS);
    expect(raised).toBe(2);
    // Nothing more came: no raise at the end of the next window, and the next notification raises at once.
    vi.advanceTimersByTime(WAKE_WINDOW_MS * 3);
    expect(raised).toBe(2);
    wake.call();
    expect(raised).toBe(3);
  });

  it('a steady stream of notifications raises once per window, and the last one is never dropped', () => {
    let raised = 0;
    const wake = coalesced(() => raised++, 10);
    // 300 notifications, one every 2 ms over 600 ms: one raise per 10 ms window, not 300.
    for (let i = 0; i < 300; i++) {
      vi.advanceTimersByTime(2);
      wake.call();
    }
    expect(raised).toBeGreaterThanOrEqual(60);
    expect(raised).toBeLessThanOrEqual(61);
    // The last notification, made within a window, is raised at its end.
    const before = raised;
    vi.advanceTimersByTime(10);
    expect(raised).toBe(before + 1);
    vi.advanceTimersByTime(100);
    expect(raised).toBe(before + 1);
  });

  it('cancel drops a raise still to come', () => {
    let raised = 0;
    const wake = coalesced(() => raised++, WAKE_WINDOW_MS);
    wake.call();
    wake.call();
    wake.cancel();
    vi.advanceTimersByTime(WAKE_WINDOW_MS * 2);
    expect(raised).toBe(1);
  });
});
