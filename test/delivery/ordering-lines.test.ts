/**
 * The lines of an ordered webhook: they follow commit order, not event ids (on PostgreSQL a node
 * whose clock is behind numbers a later event lower, and an event of a transaction still running
 * is not visible yet); a test event's delivery is in no line; and a line held by a head waiting
 * for its retry is not due, so passes do not walk its backlog.
 */
import { describe, expect, it } from 'vitest';
import { enqueueEvent, inOutboxTransaction } from '../../src/delivery/enqueue.js';
import { sendTestEvent } from '../../src/services/webhook-deliveries.js';
import { isoAt } from '../../src/domain/clock.js';
import { idLowerBound, newId } from '../../src/domain/ids.js';
import { insertDelivery } from '../../src/store/deliveries.js';
import { dueWebhooks } from '../../src/store/delivery-claims.js';
import { blockedResources, getDeliveryView, listDeliveries } from '../../src/store/delivery-views.js';
import { insertEvent } from '../../src/store/events.js';
import type { WebhookOrdering } from '../../src/store/webhooks.js';
import type { EventDataByType } from '../../src/verify/events.js';
import { isTestEvent } from '../../src/verify/test-events.js';
import type { TestContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import type { Received } from './receiver.js';
import { passesUntil, SHORT, setup } from './dispatch/support.js';

type Setup = Awaited<ReturnType<typeof setup>>;

/** An event about `resource`, in its own transaction; returns its id. */
async function update(ctx: TestContext, orgId: string, resource: string, n: number): Promise<string> {
  const data = { id: resource, status: 'Processing', update: n } as unknown as EventDataByType['Transaction_Updated'];
  return (await inOutboxTransaction(ctx, (c) => enqueueEvent(c, orgId, 'Transaction_Updated', data))).event.id;
}

const typeOf = (r: Received) => (JSON.parse(r.body.toString()) as { type: string }).type;
const eventIds = (s: Setup) => s.receiver.received.map((r) => String(r.headers['x-event-id']));

/** The setup's webhook switched to `ordering`; its receiver answers 500 to what `fails` picks and 200 to the rest. */
async function orderedSetup(ordering: WebhookOrdering, fails: (r: Received) => boolean = () => false): Promise<Setup> {
  const s = await setup(SHORT);
  const patched = await s.http
    .patch(`/v1/notifications/webhooks/settings/${s.webhookId}`)
    .set('authorization', s.org.auth)
    .send({ url: s.receiver.url, ordering });
  expect(patched.status).toBe(200);
  s.receiver.setResponder((r, res) => {
    res.statusCode = fails(r) ? 500 : 200;
    res.end();
  });
  return s;
}

/**
 * An event about `resource` numbered `id` and its delivery to the setup's webhook, in one
 * transaction, as a node whose clock differs from this one's would write them.
 */
async function writeNumbered(s: Setup, id: string, resource: string): Promise<string> {
  const now = s.ctx.clock.now();
  const body = {
    id,
    type: 'Transaction_Updated',
    organizationId: s.org.org.id,
    createdAt: isoAt(now),
    timestamp: now,
    data: { id: resource },
  };
  await s.ctx.db.transaction(async (tx) => {
    await insertEvent(tx, { id, org_id: s.org.org.id, type: body.type, body: JSON.stringify(body), created_at: body.createdAt });
    await insertDelivery(tx, {
      id: newId('dlv', now),
      eventId: id,
      webhookId: s.webhookId,
      orgId: s.org.org.id,
      state: 'pending',
      nextAttemptAt: now,
      at: isoAt(now),
      resourceKey: resource,
    });
  });
  return id;
}

/** The delivery of `eventId` to the setup's webhook. */
async function deliveryOf(s: Setup, eventId: string) {
  return (await listDeliveries(s.ctx.db, { eventId, limit: 1 }))[0]!;
}

describe.skipIf(!onPostgres)('ordered lines in commit order on PostgreSQL', () => {
  for (const ordering of ['resource', 'webhook'] as const) {
    it(`${ordering}: a later event numbered lower by a clock behind goes after the earlier one, and waits behind it`, async () => {
      let first = '';
      let failed = false;
      const s = await orderedSetup(ordering, (r) => {
        if (failed || String(r.headers['x-event-id']) !== first) return false;
        return (failed = true);
      });
      first = await update(s.ctx, s.org.org.id, 'txn_a', 1);
      // Another node whose clock is a minute behind writes the next update: its id sorts before the first.
      const second = await writeNumbered(s, idLowerBound('evt', s.ctx.clock.now() - 60_000), 'txn_a');
      expect(second < first).toBe(true);

      // The first is tried and fails: the second waits behind it, seen as such, and is not sent.
      await passesUntil(s.dispatcher, () => expect(eventIds(s)).toEqual([first]));
      expect(await s.dispatcher.runOnce()).toBe(0);
      const head = await deliveryOf(s, first);
      const behind = await getDeliveryView(s.ctx.db, s.org.org.id, (await deliveryOf(s, second)).id, s.ctx.clock.now());
      expect(behind?.waitingBehind).toBe(head.id);
      expect(await blockedResources(s.ctx.db, { webhookId: s.webhookId, limit: 10 })).toEqual([
        expect.objectContaining({ headId: head.id, eventId: first, waiting: 1 }),
      ]);

      // Its retry succeeds, then the second goes.
      s.ctx.clock.advance(10_000);
      await passesUntil(s.dispatcher, () => expect(eventIds(s)).toEqual([first, first, second]));
    });
  }

  it('a head written by a transaction still running holds a later event of its resource committed meanwhile', async () => {
    const s = await orderedSetup('resource');
    let written!: (id: string) => void;
    const headWritten = new Promise<string>((r) => (written = r));
    let commit!: () => void;
    const committing = new Promise<void>((r) => (commit = r));
    const data = { id: 'txn_a', status: 'Processing', update: 1 } as unknown as EventDataByType['Transaction_Updated'];
    const running = inOutboxTransaction(s.ctx, async (c) => {
      const stored = await enqueueEvent(c, s.org.org.id, 'Transaction_Updated', data);
      written(stored.event.id);
      await committing;
      return stored.event.id;
    });
    const first = await headWritten;
    const second = await update(s.ctx, s.org.org.id, 'txn_a', 2);
    // The second is committed and visible, the first is not yet: nothing of txn_a may go.
    expect(await s.dispatcher.runOnce()).toBe(0);
    expect(eventIds(s)).toEqual([]);
    commit();
    expect(await running).toBe(first);
    await passesUntil(s.dispatcher, () => expect(eventIds(s)).toEqual([first, second]));
  });
});

describe('test events on an ordered webhook', () => {
  it('are in no line: a failing test event holds up no real delivery, and a failing head holds up no test event', async () => {
    const failing = new Set<string>();
    const s = await orderedSetup('webhook', (r) => isTestEvent({ type: typeOf(r) }) || failing.has(String(r.headers['x-event-id'])));
    // A failing test event first, then a real event: the real one goes in the same pass, and again nothing waits behind the test event.
    const test = await sendTestEvent(s.ctx, s.org.org.id, s.webhookId, 'Transaction_Updated', undefined, { waitMs: 0 });
    const real = await update(s.ctx, s.org.org.id, 'txn_a', 1);
    await passesUntil(s.dispatcher, () => expect(new Set(eventIds(s))).toEqual(new Set([test.event.id, real])));
    expect(eventIds(s)).toHaveLength(2);
    expect((await deliveryOf(s, real)).state).toBe('delivered');
    const testRow = await getDeliveryView(s.ctx.db, s.org.org.id, test.delivery.id, s.ctx.clock.now());
    expect(testRow).toMatchObject({ state: 'pending', attempts: 1, waitingBehind: null });
    expect(await blockedResources(s.ctx.db, { webhookId: s.webhookId, limit: 10 })).toEqual([]);

    // A failing real head with a real event behind it: a new test event still goes; the one behind the head does not.
    const head = await update(s.ctx, s.org.org.id, 'txn_b', 1);
    failing.add(head);
    const behind = await update(s.ctx, s.org.org.id, 'txn_c', 1);
    await passesUntil(s.dispatcher, () => expect(eventIds(s).slice(2)).toEqual([head]));
    const later = await sendTestEvent(s.ctx, s.org.org.id, s.webhookId, 'Transaction_Updated', undefined, { waitMs: 0 });
    await passesUntil(s.dispatcher, () => expect(eventIds(s).slice(2)).toEqual([head, later.event.id]));
    const view = await getDeliveryView(s.ctx.db, s.org.org.id, (await deliveryOf(s, behind)).id, s.ctx.clock.now());
    expect(view?.waitingBehind).toBe((await deliveryOf(s, head)).id);
  });
});

describe('a line held by a head waiting for its retry', () => {
  it('resource: the rows behind the head take its retry time, so the webhook is not due before it; a retry now brings them back', async () => {
    let failing = true;
    let head = '';
    const s = await orderedSetup('resource', (r) => failing && String(r.headers['x-event-id']) === head);
    head = await update(s.ctx, s.org.org.id, 'txn_a', 1);
    const behind: string[] = [];
    for (let n = 2; n <= 6; n++) behind.push(await update(s.ctx, s.org.org.id, 'txn_a', n));
    await passesUntil(s.dispatcher, () => expect(eventIds(s)).toEqual([head]));
    const headRow = await deliveryOf(s, head);
    expect((await deliveryOf(s, behind[4]!)).nextAttemptAt).toBe(headRow.nextAttemptAt);
    expect(await dueWebhooks(s.ctx.db, s.ctx.clock.now())).toEqual([]);
    expect(await s.dispatcher.runOnce()).toBe(0);

    // A retry of the head asked for now: it goes, and the ones behind it follow without waiting for its old retry time.
    failing = false;
    const retried = await s.http.post(`/v1/notifications/deliveries/${headRow.id}/retry`).set('authorization', s.org.auth);
    expect(retried.status).toBe(202);
    await passesUntil(s.dispatcher, () => expect(eventIds(s)).toEqual([head, head, ...behind]));
  });

  it('webhook: is not due until the head is, so passes neither list the webhook nor claim from its backlog', async () => {
    let head = '';
    const s = await orderedSetup('webhook', (r) => String(r.headers['x-event-id']) === head);
    head = await update(s.ctx, s.org.org.id, 'txn_a', 1);
    for (let n = 0; n < 20; n++) await update(s.ctx, s.org.org.id, `txn_${n}`, 1);
    await passesUntil(s.dispatcher, () => expect(eventIds(s)).toEqual([head]));
    // Everything behind the head is due by its own time; the head's retry is a few seconds away.
    expect(await dueWebhooks(s.ctx.db, s.ctx.clock.now())).toEqual([]);
    expect(await s.dispatcher.runOnce()).toBe(0);
    s.ctx.clock.advance(10_000);
    expect((await dueWebhooks(s.ctx.db, s.ctx.clock.now())).map((w) => w.id)).toEqual([s.webhookId]);
  });
});
