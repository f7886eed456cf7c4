import { afterEach, describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { EventSignatures } from '../../src/delivery/event-signatures.js';
import { Signer } from '../../src/delivery/signing-keys.js';
import { createOrganization } from '../../src/services/organizations.js';
import { emitEvent, replayEvent } from '../../src/services/outbox.js';
import { createWebhook, rotatePublicKey } from '../../src/services/webhooks.js';
import { listDeliveries } from '../../src/store/delivery-views.js';
import { listWebhookKeys } from '../../src/store/webhook-keys.js';
import { makeContext } from '../support/context.js';
import { signatureVerifies, startReceiver } from './receiver.js';

afterEach(() => vi.restoreAllMocks());

describe('one signature per (event, key)', () => {
  it('signs once for 10 webhooks and a retry, again only after a rotation', async () => {
    const ctx = await makeContext({ 'delivery.retryScheduleSeconds': [0, 5, 60], 'delivery.jitter': 0 });
    const org = await createOrganization(ctx, 'Acme');
    // Webhook 3 fails its first attempt; every other one answers 200.
    let failFirst = true;
    const receiver = await startReceiver((r, res) => {
      if (r.url === '/hook/3' && failFirst) {
        failFirst = false;
        res.statusCode = 503;
      }
      res.end();
    });
    for (let i = 0; i < 10; i++) await createWebhook(ctx, org.id, { url: `${receiver.url}/${i}` });
    const signAsync = vi.spyOn(Signer.prototype, 'signAsync');
    const sign = vi.spyOn(Signer.prototype, 'sign');
    const event = await emitEvent(ctx, org.id, 'Transaction_Updated', { status: 'Completed' });

    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    // The default per-endpoint cap lets every webhook take its row in one pass.
    expect(await dispatcher.runOnce()).toBe(10);
    expect(signAsync).toHaveBeenCalledTimes(1);
    expect(dispatcher.stats().signatures).toBe(1);
    ctx.clock.advance(5000);
    expect(await dispatcher.runOnce()).toBe(1); // the retry of webhook 3
    expect(receiver.received).toHaveLength(11);
    expect(signAsync).toHaveBeenCalledTimes(1);

    // A fresh dispatcher with nothing in memory (as after a restart) finds the stored signature instead of signing again.
    await replayEvent(ctx, event.event.id);
    const restarted = new Dispatcher(ctx, { random: () => 0.5, signatures: new EventSignatures(ctx) });
    expect(await restarted.runOnce()).toBe(10);
    expect(signAsync).toHaveBeenCalledTimes(1);
    expect(restarted.stats().signatures).toBe(0);

    // A new key means one new signature, reused by all ten again.
    const rotated = await rotatePublicKey(ctx, org.id);
    await replayEvent(ctx, event.event.id);
    expect(await restarted.runOnce()).toBe(10);
    expect(signAsync).toHaveBeenCalledTimes(2);
    expect(sign).not.toHaveBeenCalled();
    expect(await listDeliveries(ctx.db, { state: 'delivered', limit: 20 })).toHaveLength(10);

    // Every one of the 31 requests verifies with the key it names.
    const pems = new Map((await listWebhookKeys(ctx.db, org.id)).map((k) => [k.id, k.public_pem]));
    expect(receiver.received).toHaveLength(31);
    for (const r of receiver.received) {
      const pem = pems.get(String(r.headers['x-signature-key-id']))!;
      expect(signatureVerifies(r, pem)).toBe(true);
      expect(r.body.toString()).toBe(event.body);
    }
    expect(receiver.received.slice(-10).every((r) => r.headers['x-signature-key-id'] === rotated.keyId)).toBe(true);
  });
});
