/**
 * A lease is written where no index looks: on PostgreSQL a claim and a renewal of a row are HOT
 * updates (the new row version stays on its page and no index gets an entry), so what the claim
 * path costs the server does not grow with the indexes the table's readers need.
 */
import { describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/database.js';
import { claimDue, renewLeases } from '../../src/store/delivery-claims.js';
import { onPostgres } from '../support/postgres.js';
import { newTx, setup } from './dispatch/support.js';

type Setup = Awaited<ReturnType<typeof setup>>;

/**
 * What a statement did to the table: its connection's counts not yet flushed to the server's
 * statistics (pg_stat_xact_user_tables), read before and after it in one transaction.
 */
async function updatesOf<T>(s: Setup, fn: (db: Setup['ctx']['db']) => Promise<T>): Promise<{ value: T; updated: number; hot: number }> {
  return await withTransaction(s.ctx, async ({ db }) => {
    const read = async () =>
      (await db.get<{ updated: string; hot: string }>(
        "SELECT n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables WHERE relname = 'deliveries'",
      ))!;
    const before = await read();
    const value = await fn(db);
    const after = await read();
    return { value, updated: Number(after.updated) - Number(before.updated), hot: Number(after.hot) - Number(before.hot) };
  });
}

/** `n` deliveries written one after another, then one claim of all of them by 'owner' and what it did to the table. */
async function claimOfNew(n: number) {
  const s = await setup();
  for (let i = 0; i < n; i++) await newTx(s.ctx, s.org.org.id);
  const now = s.ctx.clock.now();
  const claim = await updatesOf(s, (db) => claimDue(db, s.webhookId, 'owner', now, now + 60_000, 100));
  return { s, now, claim };
}

describe.runIf(onPostgres)('leases on PostgreSQL', () => {
  it('every claim and every renewal is a HOT update', async () => {
    // Few rows, so that every new version fits on their page without pruning: a snapshot another
    // session holds on the shared server (an ANALYZE) may keep the old ones, whatever the update.
    const n = 3;
    const { s, now, claim } = await claimOfNew(n);
    expect(claim).toMatchObject({ updated: n, hot: n });
    const ids = claim.value.map((c) => c.id);
    for (let round = 1; round <= 3; round++) {
      const renewal = await updatesOf(s, (db) => renewLeases(db, 'owner', ids, now + round * 60_000));
      expect(renewal).toEqual({ value: n, updated: n, hot: n });
    }
  });

  it('a claim of rows written together, several pages of them, is a HOT update of each', async () => {
    // Written one after another, the rows share their pages, and a claim leases them in that order:
    // every row of a page gets its new version at once, before any old version can be pruned.
    const n = 80;
    const { s, claim } = await claimOfNew(n);
    expect(claim.value).toHaveLength(n);
    expect(claim).toMatchObject({ updated: n, hot: n });
    expect(Number(await s.ctx.db.value("SELECT pg_relation_size('deliveries') / current_setting('block_size')::int"))).toBeGreaterThan(2);
  });

  it('the table leaves room on each page for the new versions of its rows', async () => {
    const s = await setup();
    expect(await s.ctx.db.value("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'deliveries'")).toBe(
      'fillfactor=50',
    );
  });
});
