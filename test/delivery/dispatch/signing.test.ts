/**
 * What a claimed row carries to its send: its event's body (kept between passes) and its signature.
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { enableWebhook } from '../../../src/services/webhooks.js';
import { listDeliveries } from '../../../src/store/deliveries.js';
import { startReceiver } from '../receiver.js';
import { checkSignaturesAfter, newTx, setup } from './support.js';

describe('event bodies kept between passes', () => {
  it('a pass that reads more bodies than the cache holds, or finds some cached and reads the rest, sends every row', async () => {
    const { ctx, http, org, receiver } = await setup({ 'delivery.perEndpointConcurrency': 16 });
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5, bodyCacheSize: 4 });
    const late = await startReceiver();
    checkSignaturesAfter(ctx, late);
    const b = await http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: late.url, enabled: false });
    for (let i = 0; i < 8; i++) newTx(ctx, org.org.id);
    for (let pass = 0; pass < 3 && receiver.received.length < 8; pass++) await dispatcher.runOnce();
    expect(receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(Array(8).fill('1')); // the cache now holds 4 of the bodies
    enableWebhook(ctx, b.body.id as string, '2000-01-01T00:00:00Z'); // all 8 at once to the second webhook: 4 cached, 4 read
    expect(await dispatcher.runOnce()).toBe(8);
    expect(late.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(Array(8).fill('1'));
    expect(listDeliveries(ctx.db, { webhookId: b.body.id as string, state: 'delivered', limit: 100 })).toHaveLength(8);
  });
});
