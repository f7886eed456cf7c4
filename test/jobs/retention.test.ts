import { describe, expect, it } from 'vitest';
import { makeContext, type TestContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { holdWriteLock } from '../support/write-lock.js';
import { turnsDuring } from '../support/event-loop.js';
import { plansOf } from '../support/query-plans.js';
import { createOrganization } from '../../src/services/organizations.js';
import { createWebhook, deleteWebhook, disableWebhook } from '../../src/services/webhooks.js';
import { replayWebhookSince } from '../../src/services/outbox.js';
import { enqueueEvent, inOutboxTransaction } from '../../src/delivery/enqueue.js';
import { pruneOutbox, pruneOutboxInTurns } from '../../src/jobs/retention.js';
import { setDelivered } from '../../src/store/deliveries.js';
import { countByState, listDeliveries } from '../../src/store/delivery-views.js';
import { committedEvents } from '../support/events.js';
import { deleteEvents, deleteEventsBefore, deleteTestEventsBefore } from '../../src/store/retention.js';
import { sendTestEvent } from '../../src/services/webhook-deliveries.js';
import { writeEvent } from '../../src/delivery/events.js';
import { DAY_MS, isoAt } from '../../src/domain/clock.js';
import type { TransactionEventData } from '../../src/verify/events.js';

/** For what SQLite alone has (its write lock, its query plans): skipped on the postgres project. */
const itOnSqlite = it.skipIf(onPostgres);

async function emit(ctx: Ctx, orgId: string): Promise<string> {
  return (
    await inOutboxTransaction(
      ctx,
      async (ctx) =>
        await enqueueEvent(ctx, orgId, 'VirtualAccount_Created', {
          id: 'vac_x',
          identityId: null,
          accountId: null,
          currency: 'USD',
          status: 'Created',
          failureReason: null,
          createdAt: isoAt(ctx.clock.now()),
          updatedAt: isoAt(ctx.clock.now()),
        }),
    )
  ).event.id;
}

type Ctx = TestContext;

/** `n` events, one after the other; their ids. */
async function emitMany(ctx: Ctx, orgId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await emit(ctx, orgId));
  return ids;
}

/** The organization's event ids, oldest first. */
const eventIds = async (ctx: Ctx, orgId: string) => (await committedEvents(ctx.db, orgId)).map((e) => e.id);

/** How many deliveries there are, in any state. */
const deliveries = async (ctx: Ctx) => Object.values(await countByState(ctx.db)).reduce((a, b) => a + b, 0);

/** Every pending delivery (or only the event's) delivered now, as the dispatcher would have. */
async function deliverPending(ctx: Ctx, eventId?: string): Promise<void> {
  const ids = (await listDeliveries(ctx.db, { state: 'pending', eventId, limit: 10_000 })).map((d) => d.id);
  await setDelivered(ctx.db, ids, isoAt(ctx.clock.now()));
}

describe('outbox retention', () => {
  it('deletes old delivered rows and old settled events, never anything pending or recent', async () => {
    const ctx = await makeContext(
      { 'retention.deliveredDays': 30, 'retention.eventDays': 90, 'retention.batchSize': 100 },
      '2026-01-01T00:00:00.000Z',
    );
    const org = await createOrganization(ctx, 'Acme');
    await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });

    // 250 events a year ago, delivered then (more than two batches).
    const old = await emitMany(ctx, org.id, 250);
    await deliverPending(ctx);
    // One old event still pending (its endpoint keeps failing): kept whatever its age.
    const stuck = await emit(ctx, org.id);

    ctx.clock.advance(60 * DAY_MS);
    const recent = await emit(ctx, org.id);
    await deliverPending(ctx, recent);

    // At day 60: old deliveries are past 30 days, old events not yet past 90.
    const first = await pruneOutbox(ctx);
    expect(first).toMatchObject({ deliveriesDeleted: 250, eventsDeleted: 0 });
    expect((await eventIds(ctx, org.id)).length).toBe(252);

    // At day 100: the old settled events go; the pending one and the recent one stay.
    ctx.clock.advance(40 * DAY_MS);
    const second = await pruneOutbox(ctx);
    expect(second.eventsDeleted).toBe(250);
    const left = await eventIds(ctx, org.id);
    expect(left).toEqual([stuck, recent]);
    expect(old.some((id) => left.includes(id))).toBe(false);
    expect((await listDeliveries(ctx.db, { eventId: stuck, limit: 10 })).map((d) => d.state)).toEqual(['pending']);
  });
});

describe('test event retention', () => {
  it('deletes test events after retention.testEventHours, real events of the same age stay', async () => {
    const ctx = await makeContext({ 'retention.testEventHours': 24 }, '2026-01-01T00:00:00.000Z');
    const org = await createOrganization(ctx, 'Acme');
    const webhook = await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    const test = async () => (await sendTestEvent(ctx, org.id, webhook.id, 'Transaction_Created', { note: 'x' }, { waitMs: 0 })).event.id;
    const oldTest = await test();
    const real = await emit(ctx, org.id);
    // A test event still pending is kept whatever its age, like any event.
    await deliverPending(ctx);
    const stuck = await test();
    ctx.clock.advance(2 * 3_600_000);
    const recentTest = await test();
    await deliverPending(ctx, recentTest);

    ctx.clock.advance(23 * 3_600_000);
    const result = await pruneOutbox(ctx);
    expect(result).toMatchObject({ testEventsDeleted: 1, eventsDeleted: 0, testEventsBefore: isoAt(ctx.clock.now() - DAY_MS) });
    expect(await eventIds(ctx, org.id)).toEqual([real, stuck, recentTest]);
    expect(oldTest < real).toBe(true);
    expect(await listDeliveries(ctx.db, { eventId: oldTest, limit: 10 })).toEqual([]);

    ctx.clock.advance(2 * 3_600_000);
    expect((await pruneOutbox(ctx)).testEventsDeleted).toBe(1);
    expect(await eventIds(ctx, org.id)).toEqual([real, stuck]);
  });

  // Query plans are SQLite's (EXPLAIN QUERY PLAN).
  itOnSqlite('finds old test events by the partial index, without walking every event', async () => {
    const ctx = await makeContext({}, '2026-01-01T00:00:00.000Z');
    const org = await createOrganization(ctx, 'Acme');
    for (let i = 0; i < 5; i++) await emit(ctx, org.id);
    ctx.clock.advance(2 * DAY_MS);
    const plans = await plansOf(ctx.db, () => deleteTestEventsBefore(ctx.db, isoAt(ctx.clock.now()), 100), /test\./);
    expect(plans).toHaveLength(1);
    expect(plans[0]!.plan).toMatch(/USING INDEX events_test_created/);
    expect(plans[0]!.plan).not.toMatch(/\bSCAN e\b/);
  });
});

describe('outbox retention inside the daemon', () => {
  async function oldDelivered(rows: number, overrides: Record<string, unknown> = {}) {
    const ctx = await makeContext({ 'retention.deliveredDays': 30, 'retention.batchSize': 100, ...overrides }, '2026-01-01T00:00:00.000Z');
    const org = await createOrganization(ctx, 'Acme');
    await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    for (let i = 0; i < rows; i++) await emit(ctx, org.id);
    await deliverPending(ctx);
    ctx.clock.advance(60 * DAY_MS);
    return ctx;
  }

  // Query plans are SQLite's (EXPLAIN QUERY PLAN); PostgreSQL plans from its own statistics.
  itOnSqlite('never scans deliveries or reads the pending backlog per event; the delivered pass ends at the cutoff', async () => {
    const ctx = await makeContext({ 'retention.deliveredDays': 30, 'retention.eventDays': 90 }, '2026-01-01T00:00:00.000Z');
    const org = await createOrganization(ctx, 'Acme');
    await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    for (let i = 0; i < 20; i++) await emit(ctx, org.id);
    await deliverPending(ctx);
    ctx.clock.advance(365 * DAY_MS);
    const plans = await plansOf(ctx.db, () => pruneOutbox(ctx), /\b(events|deliveries|delivery_attempts|event_signatures)\b/);
    expect((await eventIds(ctx, org.id)).length).toBe(0);
    expect(plans.length).toBeGreaterThanOrEqual(4);
    for (const { sql, plan } of plans) {
      expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringMatching(/\bSCAN (d|deliveries|delivery_attempts)\b|TEMP B-TREE/) });
      // Pending rows are reached by state only through deliveries_due; the probe must go by event.
      if (/NOT EXISTS/.test(sql)) expect(plan).not.toMatch(/deliveries_due/);
      // Delivered rows: the range ends at the cutoff, not at the newest delivered row.
      if (/state = 'delivered'/.test(sql)) expect(plan).toMatch(/state=\? AND next_attempt_at<\?/);
    }
  });

  it('prunes an event by its createdAt even when its id runs ahead (ids sort after those of a process whose clock was ahead)', async () => {
    const ctx = await makeContext({}, '2026-01-01T00:00:00.000Z');
    const org = await createOrganization(ctx, 'Acme');
    const t0 = ctx.clock.now();
    await writeEvent(ctx.db, t0 + 365 * DAY_MS, org.id, 'Transaction_Updated', {} as TransactionEventData); // written by a clock a year ahead
    for (let i = 0; i < 5; i++) await writeEvent(ctx.db, t0 + i * 3_600_000, org.id, 'Transaction_Updated', {} as TransactionEventData); // ids sort after it
    expect(await deleteEventsBefore(ctx.db, isoAt(t0 + 30 * DAY_MS), 1000)).toBe(5);
    expect((await eventIds(ctx, org.id)).length).toBe(1);
  });

  it('deletes one batch per turn of the event loop, so requests and sends run between batches', async () => {
    const ctx = await oldDelivered(450);
    const { value, turns } = await turnsDuring(pruneOutboxInTurns(ctx));
    expect(value.deliveriesDeleted).toBe(450);
    expect(turns).toBeGreaterThanOrEqual(5); // five batches of deliveries, at least one turn after each
    expect(await deliveries(ctx)).toBe(0);
  });

  // SQLite's write lock; PostgreSQL has none (tryTransaction always runs there).
  itOnSqlite('waits for a write lock another process holds on a timer, not in SQLite, and stops between batches when told', async () => {
    const ctx = await oldDelivered(250, { 'database.busyTimeoutMs': 5000 });
    const holder = holdWriteLock(ctx.db.location);
    const pruning = pruneOutboxInTurns(ctx);
    try {
      const { turns } = await turnsDuring(new Promise((r) => setTimeout(r, 200)));
      expect(turns).toBeGreaterThan(0); // the loop ran while the prune waited
      expect(await deliveries(ctx)).toBe(250);
    } finally {
      holder.release();
    }
    expect((await pruning).deliveriesDeleted).toBe(250);

    const more = await oldDelivered(450);
    let batches = 0;
    const stopped = await pruneOutboxInTurns(more, () => ++batches > 2);
    expect(stopped.deliveriesDeleted).toBe(200);
  });
});

describe('a replay racing retention and the operator (replays run in batches of 500)', () => {
  async function replayable(n: number) {
    const ctx = await makeContext({}, '2026-01-01T00:00:00.000Z');
    const org = await createOrganization(ctx, 'Acme');
    const webhook = await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });
    const ids = await emitMany(ctx, org.id, n);
    await deliverPending(ctx);
    return { ctx, org, webhook, ids };
  }

  it('an event pruned between two batches is left out; the rest of the replay goes on', async () => {
    const { ctx, webhook, ids } = await replayable(600);
    const pruned = ids[550]!;
    const result = await replayWebhookSince(ctx, webhook.id, '2000-01-01T00:00:00Z', async (done) => {
      // What the retention job does to an old settled event, between the first and second batch.
      if (done === 500) await deleteEvents(ctx.db, [pruned]);
    });
    expect(result).toEqual({ events: 600, requeued: 599 });
    expect(await deliveries(ctx)).toBe(599);
    expect((await countByState(ctx.db)).pending).toBe(599);
  });

  it('a webhook deleted or disabled between two batches gets no pending rows after it', async () => {
    for (const change of ['delete', 'disable'] as const) {
      const { ctx, org, webhook } = await replayable(600);
      await expect(
        replayWebhookSince(ctx, webhook.id, '2000-01-01T00:00:00Z', async (done) => {
          if (done !== 500) return;
          if (change === 'delete') await deleteWebhook(ctx, org.id, webhook.id);
          else await disableWebhook(ctx, webhook.id, 'borderd webhooks disable');
        }),
      ).rejects.toThrow(/disabled|not found/);
      // Whatever the first batch queued became cancelled / skipped with the change; nothing later is pending.
      expect((await countByState(ctx.db)).pending).toBe(0);
    }
  });
});
