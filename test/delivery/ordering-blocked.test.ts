/**
 * A blocked head on an ordered webhook: what waits behind it is visible (waitingBehind, the blocked
 * lines, the metric), an operator releases it by skipping or cancelling the head (API and CLI
 * service), and a head that ends with its webhook disabled leaves the rest skipped, replayed in
 * order on enable.
 */
import { describe, expect, it, vi } from 'vitest';
import { createMetricsWorker } from '../../src/metrics/metrics-worker.js';
import { enqueueEvent, inOutboxTransaction } from '../../src/delivery/enqueue.js';
import { blockedLines, releaseAnyDelivery } from '../../src/services/delivery-order.js';
import { enableWebhook } from '../../src/services/webhooks.js';
import { claimDue } from '../../src/store/delivery-claims.js';
import { listDeliveries } from '../../src/store/delivery-views.js';
import { getWebhookById } from '../../src/store/webhooks.js';
import type { EventDataByType } from '../../src/verify/events.js';
import { ADMIN_TOKEN, type TestContext } from '../support/context.js';
import { untilReadable } from '../support/watermark.js';
import { passesUntil, SHORT, setup } from './dispatch/support.js';

type Setup = Awaited<ReturnType<typeof setup>>;

/** An event about `resource`, in its own transaction; returns its id. */
async function update(ctx: TestContext, orgId: string, resource: string, n: number): Promise<string> {
  const data = { id: resource, status: 'Processing', update: n } as unknown as EventDataByType['Transaction_Updated'];
  const id = (await inOutboxTransaction(ctx, (c) => enqueueEvent(c, orgId, 'Transaction_Updated', data))).event.id;
  // An ordered claim takes it only once it is below the watermark (test/support/watermark.ts).
  await untilReadable(ctx, orgId, id);
  return id;
}

/** A webhook with ordering `resource` on the setup's receiver, which fails every event of `failing` (500) and takes the rest. */
async function orderedSetup(failing: string): Promise<Setup> {
  const s = await setup(SHORT);
  const patched = await s.http
    .patch(`/v1/notifications/webhooks/settings/${s.webhookId}`)
    .set('authorization', s.org.auth)
    .send({ url: s.receiver.url, ordering: 'resource' });
  expect(patched.status).toBe(200);
  s.receiver.setResponder((r, res) => {
    const resource = (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id;
    res.statusCode = resource === failing ? 500 : 200;
    res.end();
  });
  return s;
}

const eventsOf = (s: Setup, resource: string) =>
  s.receiver.received
    .filter((r) => (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id === resource)
    .map((r) => String(r.headers['x-event-id']));

/** The delivery of `eventId` to the setup's webhook. */
async function deliveryOf(s: Setup, eventId: string) {
  const list = await listDeliveries(s.ctx.db, { eventId, limit: 1 });
  return list[0]!;
}

describe('a blocked head on an ordered webhook', () => {
  it('holds only its own resource, says who waits behind whom, and counts in the blocked lines and the metric', async () => {
    const s = await orderedSetup('txn_a');
    const a = [await update(s.ctx, s.org.org.id, 'txn_a', 1), await update(s.ctx, s.org.org.id, 'txn_a', 2)];
    const a3 = await update(s.ctx, s.org.org.id, 'txn_a', 3);
    const b = [await update(s.ctx, s.org.org.id, 'txn_b', 1), await update(s.ctx, s.org.org.id, 'txn_b', 2)];
    for (let pass = 0; pass < 5; pass++) await s.dispatcher.runOnce();
    // txn_b went through in order; txn_a's head was tried and waits for its retry; nothing behind it went.
    expect(eventsOf(s, 'txn_b')).toEqual(b);
    expect(eventsOf(s, 'txn_a')).toEqual([a[0]]);

    const head = await deliveryOf(s, a[0]!);
    const behind = await deliveryOf(s, a3);
    const view = await s.http.get(`/v1/notifications/deliveries/${behind.id}`).set('authorization', s.org.auth);
    expect(view.status).toBe(200);
    expect(view.body.delivery).toMatchObject({ state: 'pending', waitingBehind: head.id });
    const headView = await s.http.get(`/v1/notifications/deliveries/${head.id}`).set('authorization', s.org.auth);
    expect(headView.body.delivery.waitingBehind).toBeNull();

    const blocked = await s.http.get(`/v1/notifications/webhooks/settings/${s.webhookId}/blocked`).set('authorization', s.org.auth);
    expect(blocked.status).toBe(200);
    expect(blocked.body.data).toEqual([
      expect.objectContaining({ resource: 'txn_a', headId: head.id, eventId: a[0], attempts: 1, lastStatus: 500, waiting: 2 }),
    ]);
    const operator = await s.http
      .get(`/admin/v1/organizations/${s.org.org.id}/notifications/webhooks/settings/${s.webhookId}/blocked`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(operator.body.data).toEqual(blocked.body.data);

    const metrics = createMetricsWorker(s.ctx, () => 0);
    await metrics.start();
    try {
      expect(await metrics.collect()).toContain(`borderd_outbox_blocked_resources{org_id="${s.org.org.id}"} 1`);
    } finally {
      await metrics.stop();
    }
  });

  it('an operator skips the head (API) and the next one goes; cancels the next (CLI service) and the rest follow in order', async () => {
    const s = await orderedSetup('txn_a');
    const a: string[] = [];
    for (let n = 1; n <= 4; n++) a.push(await update(s.ctx, s.org.org.id, 'txn_a', n));
    await s.dispatcher.runOnce();
    expect(eventsOf(s, 'txn_a')).toEqual([a[0]]);
    const head = await deliveryOf(s, a[0]!);

    const skipped = await s.http.post(`/v1/notifications/deliveries/${head.id}/skip`).set('authorization', s.org.auth);
    expect(skipped.status).toBe(200);
    expect(skipped.body).toMatchObject({ id: head.id, state: 'skipped' });
    // Not pending any more: a second release is a conflict that says why.
    const again = await s.http.post(`/v1/notifications/deliveries/${head.id}/cancel`).set('authorization', s.org.auth);
    expect(again.status).toBe(409);
    expect(again.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(again.body).toMatchObject({ code: 'delivery_not_pending' });

    await s.dispatcher.runOnce();
    expect(eventsOf(s, 'txn_a')).toEqual([a[0], a[1]]);
    const second = await deliveryOf(s, a[1]!);
    expect((await blockedLines(s.ctx, { webhookId: s.webhookId }))[0]).toMatchObject({ headId: second.id, waiting: 2 });
    expect(await releaseAnyDelivery(s.ctx, second.id, 'cancelled')).toMatchObject({ state: 'cancelled' });

    s.receiver.setResponder((_r, res) => res.end('ok'));
    for (let pass = 0; pass < 3; pass++) await s.dispatcher.runOnce();
    expect(eventsOf(s, 'txn_a')).toEqual([a[0], a[1], a[2], a[3]]);
    expect(await blockedLines(s.ctx, {})).toEqual([]);
  });

  it('a head in flight is not released: its attempt may have reached the endpoint', async () => {
    const s = await orderedSetup('none');
    const first = await update(s.ctx, s.org.org.id, 'txn_a', 1);
    await update(s.ctx, s.org.org.id, 'txn_a', 2);
    const now = s.ctx.clock.now();
    // On PostgreSQL the claim waits for the watermark, which another test's transaction on the shared server can hold for a moment.
    await vi.waitFor(async () => {
      await claimDue(s.ctx.db, s.webhookId, 'another-node', now, now + 60_000, 10, [], 'resource');
      expect(await s.ctx.db.value('SELECT claimed_by FROM deliveries WHERE event_id = ?', [first])).toBe('another-node');
    });
    const head = await deliveryOf(s, first);
    const res = await s.http.post(`/v1/notifications/deliveries/${head.id}/cancel`).set('authorization', s.org.auth);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'delivery_in_flight' });
    const unknown = await s.http.post('/v1/notifications/deliveries/dlv_nothing/skip').set('authorization', s.org.auth);
    expect(unknown.status).toBe(404);
  });

  it('a head that exhausts its retries disables the webhook: the rest are skipped unsent, and --replay-since sends them in order', async () => {
    const s = await orderedSetup('txn_a');
    const since = new Date(s.ctx.clock.now() - 1000).toISOString();
    const a: string[] = [];
    for (let n = 1; n <= 3; n++) a.push(await update(s.ctx, s.org.org.id, 'txn_a', n));
    const b = await update(s.ctx, s.org.org.id, 'txn_b', 1);
    await passesUntil(s.dispatcher, () => expect(s.receiver.received).toHaveLength(2));
    s.ctx.clock.advance(6_000);
    await passesUntil(s.dispatcher, () => expect(s.receiver.received).toHaveLength(3));
    s.ctx.clock.advance(80_000);
    await passesUntil(s.dispatcher, async () => expect(await getWebhookById(s.ctx.db, s.webhookId)).toMatchObject({ enabled: false }));
    expect(eventsOf(s, 'txn_a')).toEqual([a[0], a[0], a[0]]);
    expect(eventsOf(s, 'txn_b')).toEqual([b]);
    expect((await deliveryOf(s, a[0]!)).state).toBe('failed');
    for (const id of a.slice(1)) expect((await deliveryOf(s, id)).state).toBe('skipped');

    s.receiver.setResponder((_r, res) => res.end('ok'));
    const received = s.receiver.received.length;
    const { replay } = await enableWebhook(s.ctx, s.webhookId, since);
    expect(replay).toMatchObject({ requeued: 4 });
    await passesUntil(s.dispatcher, () => expect(s.receiver.received.length - received).toBe(4));
    const replayed = s.receiver.received.slice(received).map((r) => String(r.headers['x-event-id']));
    expect(replayed.filter((id) => a.includes(id))).toEqual(a);
    expect(replayed).toContain(b);
  });
  it('a manual retry keeps the order: a waiting delivery made due still waits; an earlier one retried goes before the rest', async () => {
    const s = await orderedSetup('txn_a');
    const a: string[] = [];
    for (let n = 1; n <= 3; n++) a.push(await update(s.ctx, s.org.org.id, 'txn_a', n));
    await s.dispatcher.runOnce();
    const [head, second, third] = await Promise.all(a.map((id) => deliveryOf(s, id)));
    // The last one asked for now: due, but still behind the failing head.
    const retried = await s.http.post(`/v1/notifications/deliveries/${third!.id}/retry`).set('authorization', s.org.auth);
    expect(retried.status).toBe(202);
    expect(retried.body.waitingBehind).toBe(head!.id);
    await s.dispatcher.runOnce();
    expect(eventsOf(s, 'txn_a')).toEqual([a[0]]);

    // The head succeeds at its retry; the rest follow in order.
    s.receiver.setResponder((_r, res) => res.end('ok'));
    s.ctx.clock.advance(6_000);
    for (let pass = 0; pass < 4; pass++) await s.dispatcher.runOnce();
    expect(eventsOf(s, 'txn_a')).toEqual([a[0], a[0], a[1], a[2]]);

    // A later update is held back while the delivered second one is sent again (retried): it is older, so it goes first.
    s.receiver.setResponder((_r, res) => res.writeHead(500).end());
    const again = await s.http.post(`/v1/notifications/deliveries/${second!.id}/retry`).set('authorization', s.org.auth);
    expect(again.status).toBe(202);
    const fourth = await update(s.ctx, s.org.org.id, 'txn_a', 4);
    await s.dispatcher.runOnce();
    expect(eventsOf(s, 'txn_a').slice(4)).toEqual([a[1]]);
    expect((await deliveryOf(s, fourth)).state).toBe('pending');
    const view = await s.http.get(`/v1/notifications/deliveries/${(await deliveryOf(s, fourth)).id}`).set('authorization', s.org.auth);
    expect(view.body.delivery.waitingBehind).toBe(second!.id);
  });
});
