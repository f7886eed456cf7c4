/**
 * Slow endpoints: which webhooks the dispatcher counts as slow, from the time of their last send.
 */
import { describe, expect, it } from 'vitest';
import { SlowEndpoints } from '../../../src/delivery/dispatch/slow-endpoints.js';
import { newTx, setup } from './support.js';

describe('slow endpoints', () => {
  it('are slow after a send of delivery.slowAfterMs or longer, quick again after a shorter one, and forgotten when idle', () => {
    const slow = new SlowEndpoints({ slowAfterMs: 1000 });
    slow.heard('a', 999);
    slow.heard('b', 1000);
    slow.heard('c', 10_000);
    expect(['a', 'b', 'c'].map((id) => slow.isSlow(id))).toEqual([false, true, true]);
    slow.heard('b', 20);
    expect(slow.isSlow('b')).toBe(false);
    slow.forget((id) => id === 'c');
    expect([...slow.slow]).toEqual([]);
  });

  it('are what the dispatcher counts once a send took that long', async () => {
    const s = await setup({ 'delivery.slowAfterMs': 100 });
    s.receiver.setResponder((_r, res) => void setTimeout(() => res.end('ok'), 150));
    await newTx(s.ctx, s.org.org.id);
    expect(await s.dispatcher.runOnce()).toBe(1);
    expect(s.dispatcher.isSlow(s.webhookId)).toBe(true);
    s.receiver.setResponder((_r, res) => res.end('ok'));
    await newTx(s.ctx, s.org.org.id);
    expect(await s.dispatcher.runOnce()).toBe(1);
    expect(s.dispatcher.isSlow(s.webhookId)).toBe(false);
  });
});
