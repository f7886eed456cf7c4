/**
 * Sharing the process's send slots: never more than delivery.concurrency requests in flight, and a
 * free slot goes to an organization waiting behind another one's stalled sends.
 */
import { describe, expect, it, vi } from 'vitest';
import { CLAIM_ROUNDS } from '../../../src/delivery/dispatch/claim-shares.js';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { leasedDeliveries } from '../../../src/store/delivery-claims.js';
import { makeOrg } from '../../support/context.js';
import { answeringWebhook, holdAnswers, newTx, setup, whileDispatching } from './support.js';

describe('the process-wide send budget', () => {
  it('never has more than delivery.concurrency requests in flight, across webhooks', async () => {
    const { ctx, http, org, receiver } = await setup({ 'delivery.concurrency': 3, 'delivery.perEndpointConcurrency': 4 });
    const release = holdAnswers(receiver);
    // Three webhooks (12 per-endpoint slots in all) on the same holding receiver.
    for (let i = 0; i < 2; i++) {
      await http
        .post('/v1/notifications/webhooks/settings')
        .set('authorization', org.auth)
        .send({ url: `${receiver.url}/${i}` });
    }
    // More deliveries (one per webhook per transaction) than the process may claim: CLAIM_ROUNDS rounds of its 3 send slots.
    const total = 3 * (CLAIM_ROUNDS + 1);
    for (let i = 0; i < CLAIM_ROUNDS + 1; i++) await newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    // Up to CLAIM_ROUNDS times the send slots are claimed (the waiting ones get signed meanwhile); three are sent.
    const first = dispatcher.runOnce();
    await receiver.waitFor(3);
    expect(await dispatcher.runOnce()).toBe(0); // every claim taken: nothing more is claimed
    expect(receiver.load.active).toBe(3);
    expect(receiver.load.maxActive).toBe(3);
    release();
    expect(await first).toBe(CLAIM_ROUNDS * 3);
    let sent = CLAIM_ROUNDS * 3;
    while (sent < total) sent += await dispatcher.runOnce();
    expect(sent).toBe(total);
    expect(receiver.load.maxActive).toBe(3);
  });
});

describe('sharing the process between organizations', () => {
  it('gives the next free send slot to an organization waiting behind another one’s stalled sends, then the slots go back', async () => {
    // Two send slots; organization A has three stalled webhooks with more rows than the process may
    // claim; organization B then writes one event.
    const { ctx, http, tokens, org, receiver: stalled } = await setup({ 'delivery.concurrency': 2, 'delivery.perEndpointConcurrency': 1 });
    const arrivals: string[] = [];
    const held: import('node:http').ServerResponse[] = [];
    stalled.setResponder((_r, res) => {
      arrivals.push('A');
      held.push(res);
    });
    for (let i = 0; i < 2; i++)
      await http
        .post('/v1/notifications/webhooks/settings')
        .set('authorization', org.auth)
        .send({ url: `${stalled.url}/${i}` });
    const orgB = await makeOrg(ctx, tokens, { name: 'Other' });
    const fast = await answeringWebhook(ctx, http, orgB.auth);
    fast.setResponder((_r, res) => {
      arrivals.push('B');
      res.end('ok');
    });
    for (let i = 0; i < 3; i++) await newTx(ctx, org.org.id);
    await whileDispatching(
      ctx,
      () => held.splice(0).forEach((res) => res.end('ok')),
      async (worker) => {
        await stalled.waitFor(2);
        await newTx(ctx, orgB.org.id);
        // B's row is claimed although A holds every claim the process has, and waits in the process for a slot.
        await vi.waitFor(async () => expect((await leasedDeliveries(ctx.db)).filter((d) => d.orgId === orgB.org.id)).toHaveLength(1));
        await vi.waitFor(() => expect(worker.byOrg().get(orgB.org.id)?.queued).toBe(1));
        held.shift()!.end('ok');
        // The slot A's answer freed goes to B, not to A's next queued row.
        await fast.waitFor(1);
        // With B served, A gets both slots back.
        await vi.waitFor(() => expect(stalled.load.active).toBe(2));
        expect(arrivals.slice(0, 4)).toEqual(['A', 'A', 'B', 'A']);
      },
    );
  });
});
