/**
 * Each webhook's own connection pool: one webhook hanging does not make another on the same host
 * time out, and a pool left idle is closed and its webhook forgotten.
 */
import { describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { listDeliveries } from '../../../src/store/deliveries.js';
import { newTx, setup } from './support.js';

describe('connection pools of the dispatcher', () => {
  it('forgets a webhook idle past the pool timeout: its memory is of recent webhooks, not every one since start', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 20 });
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      newTx(ctx, org.org.id);
      await receiver.waitFor(1);
      await worker.drain();
      expect(worker.webhooksTracked).toBe(1);
      // 31 s later by the monotonic clock: the pool is closed as idle at the next tick, and the webhook forgotten.
      const realNow = performance.now.bind(performance);
      const later = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + 31_000);
      try {
        await vi.waitFor(() => expect(worker.webhooksTracked).toBe(0));
      } finally {
        later.mockRestore();
      }
      // Seen again on its next event, and sent to as before.
      newTx(ctx, org.org.id);
      await receiver.waitFor(2);
      expect(worker.webhooksTracked).toBe(1);
    } finally {
      await worker.stop();
    }
  });

  it('gives each webhook its own sockets: a hanging webhook does not make another on the same host time out', async () => {
    const { ctx, http, org, receiver, webhookId } = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.timeoutMs': 1000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The first webhook's path hangs until the end of the test; the second one (same host and port) answers at once.
    receiver.setResponder((r, res) => (r.url === '/hook' ? void held.then(() => res.end('late')) : res.end('ok')));
    const second = await http
      .post('/v1/notifications/webhooks/settings')
      .set('authorization', org.auth)
      .send({ url: `${receiver.url}/fast` });
    newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    try {
      expect(await dispatcher.runOnce()).toBe(2);
    } finally {
      release();
    }
    const byWebhook = (id: string) => listDeliveries(ctx.db, { webhookId: id, limit: 1 })[0]!;
    expect(byWebhook(second.body.id as string)).toMatchObject({ state: 'delivered', lastStatus: 200, lastError: null });
    expect(byWebhook(webhookId)).toMatchObject({ state: 'pending', lastStatus: null });
    expect(byWebhook(webhookId).lastError).toMatch(/timeout|abort/i);
    await dispatcher.stop();
  });
});
