/**
 * The deadlines of the sends in flight on one timer: each expires at its own time, in the order
 * they fall due, a removed one never, a late one gets its one short extra wait, and no timer is
 * left once no send is.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LATE_TIMER_MS, SendDeadlines } from '../../../src/delivery/dispatch/send-deadlines.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function deadlines() {
  const expired: { item: string; at: number }[] = [];
  const list = new SendDeadlines<string>((item) => expired.push({ item, at: performance.now() }));
  return { list, expired };
}

describe('send deadlines on one timer', () => {
  it('expires each send at its own deadline, in the order they fall due, and not one removed first', () => {
    const { list, expired } = deadlines();
    const t0 = performance.now();
    list.add('a', 1_000);
    vi.advanceTimersByTime(300);
    const b = list.add('b', 1_000);
    vi.advanceTimersByTime(200);
    list.add('c', 1_000);
    // Sends of the same timeout share the one timer.
    expect(vi.getTimerCount()).toBe(1);
    list.remove(b);
    vi.advanceTimersByTime(2_000);
    expect(expired).toEqual([
      { item: 'a', at: t0 + 1_000 },
      { item: 'c', at: t0 + 1_500 },
    ]);
    expect([...list.items()]).toEqual([]);
  });

  it('a send added with a shorter timeout (the setting changed) expires before the older ones', () => {
    const { list, expired } = deadlines();
    const t0 = performance.now();
    list.add('long', 5_000);
    list.add('short', 1_000);
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual([{ item: 'short', at: t0 + 1_000 }]);
    vi.advanceTimersByTime(4_000);
    expect(expired.map((e) => e.item)).toEqual(['short', 'long']);
  });

  it('a deadline that fires well past its time gives its send LATE_TIMER_MS more, once', () => {
    const { list, expired } = deadlines();
    list.add('held', 1_000);
    // The event loop is held past the deadline: the clock moves, the timer has not run.
    const start = performance.now();
    vi.advanceTimersByTime(999);
    const heldUntil = start + 999 + 500;
    vi.spyOn(performance, 'now').mockReturnValue(heldUntil);
    vi.advanceTimersToNextTimer();
    expect(expired).toEqual([]);
    expect([...list.items()]).toEqual(['held']);
    vi.spyOn(performance, 'now').mockReturnValue(heldUntil + LATE_TIMER_MS);
    vi.advanceTimersToNextTimer();
    expect(expired.map((e) => e.item)).toEqual(['held']);
  });

  it('leaves no timer once the last send in flight is over', () => {
    const { list, expired } = deadlines();
    const a = list.add('a', 1_000);
    const b = list.add('b', 1_000);
    list.remove(a);
    expect(vi.getTimerCount()).toBe(1);
    list.remove(b);
    expect(vi.getTimerCount()).toBe(0);
    list.remove(b);
    vi.advanceTimersByTime(5_000);
    expect(expired).toEqual([]);
  });
});
