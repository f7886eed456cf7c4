/**
 * The statement that records a batch of results (finishAttempts): its plan on SQLite, since its
 * cost at real sizes is what a plan decides (the tests' batches are small). PostgreSQL plans from
 * its own statistics.
 */
import { describe, expect, it } from 'vitest';
import { claimDue } from '../../../src/store/delivery-claims.js';
import { finishAttempts } from '../../../src/store/delivery-results.js';
import { makeContext } from '../../support/context.js';
import { onPostgres } from '../../support/postgres.js';
import { insertBareDeliveries, plansOf } from '../../support/query-plans.js';

describe.skipIf(onPostgres)('recording a batch of results', () => {
  it('walks the batch and finds each row by its id, not the batch once per pending row', async () => {
    const ctx = await makeContext();
    await insertBareDeliveries(ctx.db, 6);
    const at = '2026-01-01T00:00:00.000Z';
    const claimed = await claimDue(ctx.db, 'whk_x', 'owner', 0, 60_000, 6);
    expect(claimed).toHaveLength(6);
    const done = claimed.slice(0, 4).map((row) => ({
      id: row.id,
      state: 'delivered' as const,
      attempts: 1,
      step: 1,
      nextAttemptAt: 0,
      lastStatus: 200,
      lastError: null,
      deliveredAt: at,
      at,
      expectStep: row.step,
      expectNextAttemptAt: row.nextAttemptAt,
    }));
    let advanced = new Set<string>();
    const [only] = await plansOf(ctx.db, async () => (advanced = await finishAttempts(ctx.db, 'owner', done)));
    expect([...advanced].sort()).toEqual(['dlv_0', 'dlv_1', 'dlv_2', 'dlv_3']);
    // The rows the owner still holds are not recorded.
    expect(await ctx.db.column('SELECT id FROM deliveries WHERE claimed_by = ? ORDER BY id', ['owner'])).toEqual(['dlv_4', 'dlv_5']);
    // The batch (jsonb_each) leads, and each row is reached by its primary key.
    expect(only!.plan).toMatch(
      /^SCAN jsonb_each VIRTUAL TABLE.* \| SEARCH deliveries USING INDEX sqlite_autoindex_deliveries_1 \(id=\?\)$/,
    );
  });
});
