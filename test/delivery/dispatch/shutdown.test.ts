/**
 * A started dispatcher: woken by a commit; stop() finishes the sends in flight within the grace,
 * abandons what still hangs after it unrecorded, and leaves no lease behind.
 */
import { describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { Signer } from '../../../src/delivery/signing-keys.js';
import { getDelivery } from '../../../src/store/deliveries.js';
import { deliveryLease, leasedDeliveries } from '../../../src/store/delivery-claims.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { expectGivenBackUnattempted, holdAnswers, newTx, setup } from './support.js';

describe('start and stop', () => {
  it('is woken by a commit, and stop() finishes the send in flight and leaves no lease behind', async () => {
    // A poll interval far beyond the test: only the in-process signal can start the send.
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    const release = holdAnswers(receiver);
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    await newTx(ctx, org.org.id); // commit + signal: no poll needed
    await receiver.waitFor(1);
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release();
    await stopping;
    const [d] = await listDeliveries(ctx.db, { limit: 1 });
    expect(d!.state).toBe('delivered');
    expect(await leasedDeliveries(ctx.db)).toEqual([]);
  });

  it('a send still hanging when the shutdown grace ends is abandoned unrecorded and its lease given back', async () => {
    const { ctx, org, receiver, webhookId } = await setup({ 'delivery.pollIntervalMs': 3_600_000, 'server.shutdownGraceMs': 50 });
    receiver.setResponder(() => undefined); // never answers; the send timeout (10 s) is far away
    const worker = new Dispatcher(ctx, { random: () => 0.5, owner: 'stopping' });
    worker.start();
    await newTx(ctx, org.org.id);
    await receiver.waitFor(1);
    const [d] = await listDeliveries(ctx.db, { limit: 1 });
    expect((await deliveryLease(ctx.db, d!.id))?.claimedBy).toBe('stopping');
    await worker.stop();
    await expectGivenBackUnattempted(ctx, d!.id);
    receiver.setResponder((_r, res) => res.end('ok'));
    const next = new Dispatcher(ctx, { random: () => 0.5 });
    expect(await next.runOnce()).toBe(1);
    expect(await getDelivery(ctx.db, d!.id)).toMatchObject({ state: 'delivered', webhookId });
  });

  it('a job still waiting for its signature when the shutdown grace ends is not sent, and its lease is given back', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 3_600_000, 'server.shutdownGraceMs': 50 });
    // The signature is held until well after the grace: the job is claimed and waits for it.
    let signing!: () => void;
    const asked = new Promise<void>((r) => (signing = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const original = Signer.prototype.signAsync;
    const spy = vi.spyOn(Signer.prototype, 'signAsync').mockImplementation(function (this: Signer, key, body) {
      signing();
      return held.then(() => original.call(this, key, body));
    });
    try {
      const worker = new Dispatcher(ctx, { random: () => 0.5 });
      worker.start();
      await newTx(ctx, org.org.id);
      await asked;
      const [d] = await listDeliveries(ctx.db, { limit: 1 });
      const stopping = worker.stop();
      setTimeout(release, 200); // the grace (50 ms) is over by then
      await stopping;
      expect(receiver.received).toHaveLength(0);
      await expectGivenBackUnattempted(ctx, d!.id);
    } finally {
      spy.mockRestore();
    }
  });
});
