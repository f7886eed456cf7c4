import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortableSleep } from '../../src/receiver/abortable-sleep.js';

describe('abortableSleep', () => {
  it('holds no abort listener once a wait is over, whether its timer or the signal ended it', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 20; i++) await abortableSleep(1, stop.signal);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    const waits = [abortableSleep(60_000, stop.signal), abortableSleep(60_000, stop.signal)];
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(2);
    stop.abort();
    await Promise.all(waits);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });
});
