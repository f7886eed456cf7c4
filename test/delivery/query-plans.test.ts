import { describe, expect, it } from 'vitest';
import { eventIdsSince, releaseLeases, webhookHealth } from '../../src/store/deliveries.js';
import { makeContext } from '../support/context.js';
import { plansOf } from '../support/query-plans.js';

/**
 * Statements of the outbox that an operator or a stop runs over the whole history: their plans,
 * since a database of a million deliveries is what makes a wrong one show (the tests' are small).
 */
describe('outbox statements over a long history', () => {
  it('a replay since a time seeks the events from that time on, not from the organization\'s first', async () => {
    const ctx = makeContext();
    const [only] = await plansOf(ctx.db, () => eventIdsSince(ctx.db, 'org_x', '2026-01-01T00:00:00.000Z'));
    expect(only!.plan).toMatch(/events_org_id \(org_id=\? AND id>\?\)/);
  });

  it('a clean stop gives its leases back by seeking pending rows, not by scanning every delivery', async () => {
    const ctx = makeContext();
    const [only] = await plansOf(ctx.db, () => releaseLeases(ctx.db, 'owner'));
    expect(only!.plan).not.toMatch(/\bSCAN deliveries\b/);
  });

  it("a webhook's health reads the rows that are not delivered, not every attempt of its history", async () => {
    const ctx = makeContext();
    const plans = await plansOf(ctx.db, () => webhookHealth(ctx.db, 'whk_x'), /delivery_attempts/);
    expect(plans).toHaveLength(1);
    expect(plans[0]!.plan).toMatch(/SEARCH d USING (COVERING )?INDEX deliveries_webhook_due \(webhook_id=\? AND state=\?\)/);
  });
});
