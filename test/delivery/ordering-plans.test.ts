/**
 * The statements of ordered delivery over a long history: the claim's eligibility check, the
 * "waiting behind" of a delivery view and the blocked lines each seek pending rows only, in the
 * partial indexes of migration 027 (deliveries_pending_resource, deliveries_pending_order) and
 * deliveries_retrying, never a webhook's delivered history. SQLite's plans: PostgreSQL plans from
 * its own statistics.
 */
import { describe, expect, it } from 'vitest';
import { blockedResources, claimDue, getDeliveryView } from '../../src/store/deliveries.js';
import { makeContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { plansOf } from '../support/query-plans.js';

describe.skipIf(onPostgres)('ordered delivery statements', () => {
  it('the claim of a webhook in order per resource, or in strict order, checks what is ahead of each candidate in a partial index', async () => {
    const ctx = await makeContext();
    const [resource] = await plansOf(ctx.db, async () => await claimDue(ctx.db, 'whk_x', 'owner', 0, 1, 10, [], 'resource'));
    expect(resource!.plan).toMatch(
      /SEARCH ahead USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_id<\?\)/,
    );
    expect(resource!.plan).toMatch(
      /SEARCH c USING (COVERING )?INDEX deliveries_webhook_due \(webhook_id=\? AND state=\? AND next_attempt_at<\?\)/,
    );
    const [strict] = await plansOf(ctx.db, async () => await claimDue(ctx.db, 'whk_x', 'owner', 0, 1, 10, [], 'webhook'));
    expect(strict!.plan).toMatch(/SEARCH ahead USING (COVERING )?INDEX deliveries_pending_order \(webhook_id=\? AND event_id<\?\)/);
    const [none] = await plansOf(ctx.db, async () => await claimDue(ctx.db, 'whk_x', 'owner', 0, 1, 10, [], 'none'));
    expect(none!.plan).not.toMatch(/ahead/);
  });

  it("a delivery view's head and the blocked lines read pending rows only", async () => {
    const ctx = await makeContext();
    const [view] = await plansOf(ctx.db, async () => await getDeliveryView(ctx.db, 'org_x', 'dlv_x', 0), /waiting_behind/);
    expect(view!.plan).toMatch(/SEARCH h USING (COVERING )?INDEX deliveries_pending_resource/);
    expect(view!.plan).toMatch(/SEARCH h USING (COVERING )?INDEX deliveries_pending_order/);
    const [blocked] = await plansOf(ctx.db, async () => await blockedResources(ctx.db, { orgId: 'org_x', limit: 10 }));
    // The heads come from the failing pending rows (a partial index), each line's rows from its own.
    expect(blocked!.plan).toMatch(/SCAN r USING INDEX deliveries_retrying/);
    expect(blocked!.plan).toMatch(
      /SEARCH a USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_id<\?\)/,
    );
    expect(blocked!.plan).toMatch(
      /SEARCH b USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_id>\?\)/,
    );
  });
});
