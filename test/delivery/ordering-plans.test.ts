/**
 * The statements of ordered delivery over a long history: the claim's eligibility check, the
 * "waiting behind" of a delivery view, the blocked lines and the hold of a line behind a failed head
 * each seek pending rows only, in commit order, in the partial indexes of migration 028
 * (deliveries_pending_resource, deliveries_pending_order, deliveries_pending_unlined) and
 * deliveries_retrying, never a webhook's delivered history; in strict order the claim and the due
 * check read the head of the line alone. SQLite's plans: PostgreSQL plans from its own statistics.
 */
import { describe, expect, it } from 'vitest';
import { claimDue, dueWebhooks } from '../../src/store/delivery-claims.js';
import { holdLineBehind } from '../../src/store/delivery-results.js';
import { blockedResources, getDeliveryView } from '../../src/store/delivery-views.js';
import { makeContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { plansOf } from '../support/query-plans.js';

describe.skipIf(onPostgres)('ordered delivery statements', () => {
  it('the claim per resource checks what is ahead of each candidate in a partial index; in strict order it reads the head alone', async () => {
    const ctx = await makeContext();
    const [resource] = await plansOf(ctx.db, async () => await claimDue(ctx.db, 'whk_x', 'owner', 0, 1, 10, [], 'resource'));
    expect(resource!.plan).toMatch(
      /SEARCH ahead USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_tx=\? AND event_id<\?\)/,
    );
    expect(resource!.plan).toMatch(
      /SEARCH c USING (COVERING )?INDEX deliveries_webhook_due \(webhook_id=\? AND state=\? AND next_attempt_at<\?\)/,
    );
    // Strict order: the head (first entry of its line) and the test events' deliveries, each candidate read by its id, not the due rows.
    const [strict] = await plansOf(ctx.db, async () => await claimDue(ctx.db, 'whk_x', 'owner', 0, 1, 10, [], 'webhook'));
    expect(strict!.plan).toMatch(/SEARCH h USING (COVERING )?INDEX deliveries_pending_order \(webhook_id=\?\)/);
    expect(strict!.plan).toMatch(/SEARCH u USING (COVERING )?INDEX deliveries_pending_unlined \(webhook_id=\?\)/);
    expect(strict!.plan).toMatch(/SCAN k \| SEARCH c USING INDEX sqlite_autoindex_deliveries_1 \(id=\?\)/);
    expect(strict!.plan).not.toMatch(/deliveries_webhook_due|ahead/);
    const [none] = await plansOf(ctx.db, async () => await claimDue(ctx.db, 'whk_x', 'owner', 0, 1, 10, [], 'none'));
    expect(none!.plan).not.toMatch(/ahead/);
  });

  it('the due check of a webhook in strict order reads its head and its test events, not its line', async () => {
    const ctx = await makeContext();
    const [due] = await plansOf(ctx.db, async () => await dueWebhooks(ctx.db, 0));
    expect(due!.plan).toMatch(/SEARCH h USING (COVERING )?INDEX deliveries_pending_order \(webhook_id=\?\)/);
    expect(due!.plan).toMatch(/SEARCH d USING (COVERING )?INDEX deliveries_pending_unlined \(webhook_id=\? AND next_attempt_at<\?\)/);
  });

  it("a delivery view's head, the blocked lines and the hold behind a failed head read pending rows only", async () => {
    const ctx = await makeContext();
    const [view] = await plansOf(ctx.db, async () => await getDeliveryView(ctx.db, 'org_x', 'dlv_x', 0), /waiting_behind/);
    expect(view!.plan).toMatch(
      /SEARCH h USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_tx=\? AND event_id<\?\)/,
    );
    expect(view!.plan).toMatch(
      /SEARCH h USING (COVERING )?INDEX deliveries_pending_order \(webhook_id=\? AND event_tx=\? AND event_id<\?\)/,
    );
    const [blocked] = await plansOf(ctx.db, async () => await blockedResources(ctx.db, { orgId: 'org_x', limit: 10 }));
    // The heads come from the failing pending rows (a partial index), each line's rows from its own.
    expect(blocked!.plan).toMatch(/SCAN r USING INDEX deliveries_retrying/);
    expect(blocked!.plan).toMatch(
      /SEARCH a USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_tx=\? AND event_id<\?\)/,
    );
    expect(blocked!.plan).toMatch(
      /SEARCH b USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_tx=\? AND event_id>\?\)/,
    );
    const [hold] = await plansOf(ctx.db, async () => await holdLineBehind(ctx.db, 'dlv_x'));
    expect(hold!.plan).toMatch(/SEARCH h USING INDEX sqlite_autoindex_deliveries_1 \(id=\?\)/);
    expect(hold!.plan).toMatch(
      /SEARCH b USING (COVERING )?INDEX deliveries_pending_resource \(webhook_id=\? AND resource_key=\? AND event_tx=\? AND event_id>\?\)/,
    );
  });
});
