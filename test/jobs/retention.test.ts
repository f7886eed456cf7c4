import { describe, expect, it } from 'vitest';
import { makeContext } from '../support/context.js';
import { createOrganization } from '../../src/services/organizations.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { enqueueEvent, inOutboxTransaction } from '../../src/delivery/enqueue.js';
import { pruneOutbox } from '../../src/jobs/retention.js';
import { DAY_MS, isoAt } from '../../src/domain/clock.js';

function emit(ctx: ReturnType<typeof makeContext>, orgId: string) {
  return inOutboxTransaction(ctx, () =>
    enqueueEvent(ctx, orgId, 'VirtualAccount_Created', {
      id: 'vac_x',
      identityId: null,
      accountId: null,
      currency: 'USD',
      status: 'Created',
      failureReason: null,
      createdAt: isoAt(ctx.clock.now()),
      updatedAt: isoAt(ctx.clock.now()),
    }),
  ).event.id;
}

const count = (ctx: ReturnType<typeof makeContext>, table: string) =>
  (ctx.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('outbox retention', () => {
  it('deletes old delivered rows and old settled events, never anything pending or recent', () => {
    const ctx = makeContext({ 'retention.deliveredDays': 30, 'retention.eventDays': 90, 'retention.batchSize': 100 }, '2026-01-01T00:00:00.000Z');
    const org = createOrganization(ctx, 'Acme');
    createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/hook' });

    // 250 events a year ago, delivered then (more than two batches).
    const old = Array.from({ length: 250 }, () => emit(ctx, org.id));
    ctx.db.prepare("UPDATE deliveries SET state = 'delivered', delivered_at = ?").run(isoAt(ctx.clock.now()));
    // One old event still pending (its endpoint keeps failing): kept whatever its age.
    const stuck = emit(ctx, org.id);

    ctx.clock.advance(60 * DAY_MS);
    const recent = emit(ctx, org.id);
    ctx.db.prepare("UPDATE deliveries SET state = 'delivered', delivered_at = ? WHERE event_id = ?").run(isoAt(ctx.clock.now()), recent);

    // At day 60: old deliveries are past 30 days, old events not yet past 90.
    const first = pruneOutbox(ctx);
    expect(first).toMatchObject({ deliveriesDeleted: 250, eventsDeleted: 0 });
    expect(count(ctx, 'events')).toBe(252);

    // At day 100: the old settled events go; the pending one and the recent one stay.
    ctx.clock.advance(40 * DAY_MS);
    const second = pruneOutbox(ctx);
    expect(second.eventsDeleted).toBe(250);
    const left = ctx.db.prepare('SELECT id FROM events ORDER BY id').pluck().all();
    expect(left).toEqual([stuck, recent]);
    expect(old.some((id) => left.includes(id))).toBe(false);
    expect(ctx.db.prepare("SELECT state FROM deliveries WHERE event_id = ?").pluck().get(stuck)).toBe('pending');
  });
});
