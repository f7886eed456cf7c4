import { describe, expect, it } from 'vitest';
import { insertDelivery, setPendingState, type DeliveryState } from '../../src/store/deliveries.js';
import { claimDue, releaseLeases, takeBackLeases } from '../../src/store/delivery-claims.js';
import { listDeliveries, pageDeliveries, webhookHealth } from '../../src/store/delivery-views.js';
import { eventIdsSince } from '../../src/store/events.js';
import { makeContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { insertBareDeliveries, plansOf } from '../support/query-plans.js';

/**
 * Statements of the outbox that an operator or a stop runs over the whole history: their plans,
 * since a database of a million deliveries is what makes a wrong one show (the tests' are small).
 * SQLite's plans: PostgreSQL plans from its own statistics.
 */
describe.skipIf(onPostgres)('outbox statements over a long history', () => {
  it("a replay since a time seeks the events from that time on, not from the organization's first", async () => {
    const ctx = await makeContext();
    const [only] = await plansOf(ctx.db, async () => await eventIdsSince(ctx.db, 'org_x', '2026-01-01T00:00:00.000Z'));
    expect(only!.plan).toMatch(/events_org_id \(org_id=\? AND id>\?\)/);
  });

  it('a clean stop and a takeover find the pending rows a process holds through the pending rows, not the delivered history', async () => {
    const ctx = await makeContext();
    for (const run of [() => releaseLeases(ctx.db, 'owner'), () => takeBackLeases(ctx.db, 'owner')]) {
      const [only] = await plansOf(ctx.db, run);
      expect(only!.plan).toMatch(/^SEARCH deliveries USING INDEX deliveries_due \(state=\?\)$/);
    }
    await insertBareDeliveries(ctx.db, 5);
    expect(await claimDue(ctx.db, 'whk_x', 'owner', 0, 60_000, 3)).toHaveLength(3);
    expect(await claimDue(ctx.db, 'whk_x', 'other', 0, 60_000, 1)).toHaveLength(1);
    expect(await releaseLeases(ctx.db, 'owner')).toBe(3);
    expect(await ctx.db.column('SELECT claimed_by FROM deliveries WHERE claimed_by IS NOT NULL')).toEqual(['other']);
  });

  it('a row skipped while claimed keeps its lease at a stop: finding it would walk the skipped history', async () => {
    const ctx = await makeContext();
    await insertBareDeliveries(ctx.db, 2);
    expect(await claimDue(ctx.db, 'whk_x', 'owner', 0, 60_000, 10)).toHaveLength(2);
    await setPendingState(ctx.db, 'whk_x', 'skipped', '2026-01-01T00:00:01.000Z'); // the webhook disabled while they waited
    expect(await releaseLeases(ctx.db, 'owner')).toBe(0);
    expect(await ctx.db.value('SELECT COUNT(*) FROM deliveries WHERE claimed_by IS NOT NULL')).toBe(2);
  });

  it("a refill's claim walks the webhook's due rows from where the claim before it ended, not from the oldest", async () => {
    const ctx = await makeContext();
    await insertBareDeliveries(ctx.db, 5);
    for (const ordering of ['none', 'resource'] as const) {
      const after = { nextAttemptAt: 0, id: 'dlv_1' };
      const [only] = await plansOf(ctx.db, () => claimDue(ctx.db, 'whk_x', 'owner', 0, 60_000, 3, [], ordering, undefined, after));
      expect(only!.plan, ordering).toMatch(
        /SEARCH c USING INDEX deliveries_webhook_due \(webhook_id=\? AND state=\? AND \(next_attempt_at,id\)>\(\?,\?\)/,
      );
    }
  });

  it("a webhook's health reads the rows that are not delivered, not every attempt of its history", async () => {
    const ctx = await makeContext();
    const plans = await plansOf(ctx.db, async () => await webhookHealth(ctx.db, 'whk_x'), /delivery_attempts/);
    expect(plans).toHaveLength(1);
    expect(plans[0]!.plan).toMatch(/SEARCH d USING (COVERING )?INDEX deliveries_webhook_due \(webhook_id=\? AND state=\?\)/);
  });

  it('lists by state in id order across organizations, each on its own (org_id, state, id) range: no sort of every row in the state', async () => {
    const ctx = await makeContext();
    const db = ctx.db;
    await db.exec('PRAGMA foreign_keys = OFF'); // rows only: no events or webhooks behind them
    const states: DeliveryState[] = ['delivered', 'pending', 'failed'];
    for (let i = 0; i < 60; i++) {
      await insertDelivery(db, {
        id: `dlv_${String(i).padStart(4, '0')}`,
        eventId: `evt_${i}`,
        webhookId: 'whk_x',
        orgId: i % 3 === 0 ? 'org_a' : 'org_b',
        state: states[i % 3]!,
        nextAttemptAt: 0,
        at: '2026-01-01T00:00:00.000Z',
      });
    }
    for (const org of ['org_a', 'org_b'])
      await db.run("INSERT INTO organizations (id, name, created_at) VALUES (?, 'x', '2026-01-01T00:00:00.000Z')", [org]);
    const want = (state: DeliveryState, limit: number) =>
      Array.from({ length: 60 }, (_, i) => i)
        .filter((i) => states[i % 3] === state)
        .map((i) => `dlv_${String(i).padStart(4, '0')}`)
        .slice(0, limit);
    for (const state of states) expect((await listDeliveries(db, { state, limit: 7 })).map((d) => d.id)).toEqual(want(state, 7));
    // A limit that would read too many rows across organizations takes the single query: same rows.
    for (const state of states) expect((await listDeliveries(db, { state, limit: 30_000 })).map((d) => d.id)).toEqual(want(state, 30_000));
    const plans = await plansOf(db, () => listDeliveries(db, { state: 'delivered', limit: 10 }), /FROM deliveries/);
    expect(plans.length).toBeGreaterThan(0);
    for (const { sql, plan } of plans)
      expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringMatching(/TEMP B-TREE|\bSCAN deliveries\b/) });
  });

  it('pages deliveries newest first on an index in id order, whichever filter is given: no sort of every row', async () => {
    const ctx = await makeContext();
    const db = ctx.db;
    await db.run("INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'x', '2026-01-01T00:00:00.000Z')");
    const since = '2026-01-01T00:00:00.000Z';
    for (const f of [
      {},
      { state: 'failed' as const },
      { webhookId: 'whk_x' },
      { webhookId: 'whk_x', state: 'pending' as const },
      { state: 'failed' as const, since, before: 'dlv_z' },
      { since, before: 'dlv_z' },
    ]) {
      const plans = await plansOf(db, () => pageDeliveries(db, { ...f, limit: 10 }), /FROM deliveries/);
      expect(plans.length).toBeGreaterThan(0);
      for (const { sql, plan } of plans)
        expect({ f, sql, plan }).toEqual({ f, sql, plan: expect.not.stringMatching(/TEMP B-TREE|\bSCAN deliveries\b(?! USING)/) });
    }
  });
});
