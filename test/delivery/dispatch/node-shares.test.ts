/**
 * A webhook's send slots (perEndpointConcurrency) held across nodes: each node sends at most its
 * part, the parts add up to the setting, a node whose part drops to nothing gives its claimed rows
 * back for the others to send, and a webhook's part always sits with a part of its organization's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeRegistry } from '../../../src/cluster/nodes.js';
import { shareOfSlots } from '../../../src/cluster/shares.js';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { distinctEvents, holdAnswers, newTx, setup } from './support.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A node: its registry (started, so it is in the nodes table) and its dispatcher (not started). */
async function node(ctx: Awaited<ReturnType<typeof setup>>['ctx'], id: string) {
  const registry = new NodeRegistry(ctx, id);
  await registry.start();
  const dispatcher = new Dispatcher(ctx, { owner: id, share: registry.share, random: () => 0.5 });
  stops.push(() => registry.stop());
  return { registry, dispatcher };
}

function run(dispatcher: Dispatcher): void {
  dispatcher.start();
  stops.push(() => dispatcher.stop());
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('parts of a webhook’s send slots', () => {
  it('add up to the slots for any number of nodes, and spread webhooks over the nodes when slots are few', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `wh_${i.toString(36).padStart(8, '0')}`);
    for (let nodes = 1; nodes <= 5; nodes++) {
      for (let slots = 1; slots <= 9; slots++) {
        for (const id of ids) {
          const parts = Array.from({ length: nodes }, (_, rank) => shareOfSlots(slots, id, rank, nodes));
          expect(parts.reduce((a, b) => a + b, 0)).toBe(slots);
          expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(1);
        }
      }
    }
    // One slot, three nodes: each webhook on one node, and not all on the same one.
    const senders = new Set(ids.map((id) => [0, 1, 2].find((rank) => shareOfSlots(1, id, rank, 3) === 1)));
    expect(senders.size).toBe(3);
  });
});

describe('several nodes sending to one webhook', () => {
  it('send it at most perEndpointConcurrency requests at once between them, each its part', async () => {
    const s = await setup({ 'delivery.perEndpointConcurrency': 4, 'delivery.pollIntervalMs': 20, 'delivery.timeoutMs': 5000 });
    const release = holdAnswers(s.receiver);
    stops.push(async () => release());
    const a = await node(s.ctx, 'node-a:1:0a');
    const b = await node(s.ctx, 'node-b:2:0b');
    await a.registry.heartbeat(); // a read the nodes table before b joined
    expect([a.registry.live, b.registry.live]).toEqual([
      ['node-a:1:0a', 'node-b:2:0b'],
      ['node-a:1:0a', 'node-b:2:0b'],
    ]);
    for (let i = 0; i < 16; i++) await newTx(s.ctx, s.org.org.id);
    run(a.dispatcher);
    run(b.dispatcher);
    await s.receiver.waitFor(4);
    await pause(300); // many polls of both: neither sends more while all four are held
    expect(s.receiver.received).toHaveLength(4);
    expect([a.dispatcher.sendingTo(s.webhookId), b.dispatcher.sendingTo(s.webhookId)]).toEqual([2, 2]);
    release();
    await vi.waitFor(() => expect(s.receiver.received).toHaveLength(16), { timeout: 10_000 });
    expect(distinctEvents(s.receiver.received)).toBe(16);
  });

  it('a node whose part drops to nothing when another joins gives back the rows it claimed, and the other sends them', async () => {
    const s = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.pollIntervalMs': 20, 'delivery.timeoutMs': 5000 });
    const release = holdAnswers(s.receiver);
    stops.push(async () => release());
    // With one slot and two nodes, one node has the webhook (placed by its organization): the first node is the one that loses it.
    const placeKey = s.org.org.id;
    const [loses, keeps] = shareOfSlots(1, placeKey, 0, 2) === 0 ? ['node-a:1:0a', 'node-b:2:0b'] : ['node-b:2:0b', 'node-a:1:0a'];
    for (let i = 0; i < 6; i++) await newTx(s.ctx, s.org.org.id);
    const first = await node(s.ctx, loses);
    run(first.dispatcher);
    await s.receiver.waitFor(1);

    const second = await node(s.ctx, keeps);
    await first.registry.heartbeat();
    expect(first.registry.share(placeKey, 1)).toBe(0);
    // Its one send in flight finishes; the three rows queued behind it go back to the table unsent.
    release();
    await s.receiver.waitFor(1);
    await vi.waitFor(() => expect(first.dispatcher.sendingTo(s.webhookId)).toBe(0));
    run(second.dispatcher);
    await vi.waitFor(() => expect(distinctEvents(s.receiver.received)).toBe(6), { timeout: 10_000 });
    expect(s.receiver.received).toHaveLength(6); // none sent twice
    // The first claimed a round of four and sent one; the other sent the three it gave back and the two left.
    expect([first.dispatcher.stats().claimed, second.dispatcher.stats().claimed]).toEqual([4, 5]);
    // Each result is written a moment after its answer arrived.
    await vi.waitFor(async () => {
      const rows = await listDeliveries(s.ctx.db, { limit: 10 });
      expect(rows.map((d) => [d.state, d.attempts])).toEqual(rows.map(() => ['delivered', 1]));
    });
  });

  it("a webhook cut to one slot is sent by the node that holds its organization's one slot, with two nodes", async () => {
    const s = await setup({
      'delivery.perEndpointConcurrency': 1,
      'delivery.perOrganizationConcurrency': 1,
      'delivery.pollIntervalMs': 20,
      'delivery.timeoutMs': 5000,
    });
    const a = await node(s.ctx, 'node-a:1:0a');
    const b = await node(s.ctx, 'node-b:2:0b');
    await a.registry.heartbeat();
    // Webhooks until one whose own id places it on the other node than its organization: the case where a split by webhook id never sends.
    const orgRank = shareOfSlots(1, s.org.org.id, 0, 2) === 1 ? 0 : 1;
    const webhooks = [s.webhookId];
    while (webhooks.every((id) => shareOfSlots(1, id, orgRank, 2) === 1)) {
      const created = await s.http
        .post('/v1/notifications/webhooks/settings')
        .set('authorization', s.org.auth)
        .send({ url: s.receiver.url });
      expect(created.status).toBe(201);
      webhooks.push(created.body.id as string);
    }
    for (let i = 0; i < 3; i++) await newTx(s.ctx, s.org.org.id);
    run(a.dispatcher);
    run(b.dispatcher);
    // Every webhook gets all three events, one send at a time from the node at the organization's place.
    await vi.waitFor(
      async () => {
        const rows = await listDeliveries(s.ctx.db, { limit: 100 });
        expect(rows).toHaveLength(3 * webhooks.length);
        expect(rows.map((d) => d.state)).toEqual(rows.map(() => 'delivered'));
      },
      { timeout: 10_000 },
    );
    const sender = [a, b][orgRank]!;
    expect(sender.registry.share(s.org.org.id, 1)).toBe(1);
    expect(sender.dispatcher.stats().claimed).toBe(3 * webhooks.length);
    expect([a, b][1 - orgRank]!.dispatcher.stats().claimed).toBe(0);
  });
});
