import { describe, expect, it } from 'vitest';
import { pageWebhookDeliveries } from '../../src/store/delivery-views.js';
import { attemptsByHour, attemptTotals } from '../../src/store/delivery-attempts.js';
import { pageEvents } from '../../src/store/events.js';
import { makeContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { plansOf } from '../support/query-plans.js';

/** The tenant's reads follow an index in its order and seek what the period or page needs, whatever the history. */
describe.skipIf(onPostgres)('self-service reads over a long history', () => {
  it("a webhook's deliveries page walks (webhook_id, id) backwards from the cursor", async () => {
    const ctx = await makeContext();
    const plans = await plansOf(ctx.db, async () =>
      pageWebhookDeliveries(ctx.db, 'whk_x', 0, { state: 'failed', since: '2026-01-01T00:00:00.000Z', before: 'dlv_z', limit: 21 }),
    );
    const text = plans.map((p) => p.plan).join('\n');
    expect(text).toMatch(/deliveries_webhook_id \(webhook_id=\? AND id>\? AND id<\?\)/);
    expect(text).not.toMatch(/TEMP B-TREE/);
  });

  it('the events page seeks the type on (org_id, type, id) and the time as an id', async () => {
    const ctx = await makeContext();
    const [typed] = await plansOf(ctx.db, async () => pageEvents(ctx.db, 'org_x', { type: 'Transaction_Created', limit: 21 }));
    expect(typed!.plan).toMatch(/events_org_type_id \(org_id=\? AND type=\?\)/);
    const [ranged] = await plansOf(ctx.db, async () => pageEvents(ctx.db, 'org_x', { since: '2026-01-01T00:00:00.000Z', limit: 21 }));
    expect(ranged!.plan).toMatch(/events_org_id \(org_id=\? AND id>\?\)/);
    expect(typed!.plan + ranged!.plan).not.toMatch(/TEMP B-TREE/);
  });

  it("a webhook's health reads the rows touched in its period, not its history", async () => {
    const ctx = await makeContext();
    for (const plans of [
      await plansOf(ctx.db, async () => attemptsByHour(ctx.db, 'whk_x', '2026-01-01T00:00:00.000Z')),
      await plansOf(ctx.db, async () => attemptTotals(ctx.db, 'whk_x', '2026-01-01T00:00:00.000Z')),
    ]) {
      const text = plans.map((p) => p.plan).join('\n');
      expect(text).toMatch(/deliveries_webhook_updated \(webhook_id=\? AND updated_at>\?\)/);
      expect(text).toMatch(/delivery_attempts_delivery \(delivery_id=\?\)/);
    }
  });
});
