/**
 * A lease renewal waits for no row lock on PostgreSQL: a row another transaction holds (a result
 * batch recording it, a lease given back, an operator's change) is passed over, so a renewal and a
 * result batch of the same process, which lock their rows in different orders, never deadlock.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/database.js';
import { claimDue, deliveryLease, renewLeases } from '../../src/store/delivery-claims.js';
import { onPostgres } from '../support/postgres.js';
import { newTx, setup } from './dispatch/support.js';

describe.runIf(onPostgres)('lease renewal on PostgreSQL', () => {
  it('passes over a row another transaction holds instead of waiting for it', async () => {
    const s = await setup();
    for (let i = 0; i < 2; i++) await newTx(s.ctx, s.org.org.id);
    const now = s.ctx.clock.now();
    const [a, b] = (await claimDue(s.ctx.db, s.webhookId, 'owner', now, now + 60_000, 10)).map((row) => row.id);
    expect(a && b).toBeTruthy();
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // What a result batch does: row a locked first, then row b, in one transaction.
    const batch = withTransaction(s.ctx, async ({ db }) => {
      await db.run('UPDATE deliveries SET updated_at = updated_at WHERE id = ?', [a]);
      locked();
      await gate;
      await db.run('UPDATE deliveries SET updated_at = updated_at WHERE id = ?', [b]);
    });
    await holding;
    let settled = false;
    const renewal = renewLeases(s.ctx.db, 'owner', [b!, a!], now + 120_000).finally(() => (settled = true));
    // A renewal stuck behind the batch's lock on row a shows in pg_stat_activity as a Lock wait.
    const lockWait = (async () => {
      while (!settled) {
        const waiting = await s.ctx.db.value<string>(
          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if (Number(waiting) > 0) return 'the renewal waited for a row lock';
        await sleep(10);
      }
      return 'no wait';
    })();
    const first = await Promise.race([renewal.then((renewed) => ({ renewed })), lockWait]);
    letGo();
    await batch;
    expect(first).toEqual({ renewed: 1 });
    expect(await lockWait).toBe('no wait');
    // Row b's lease is extended; row a's, held by the batch when the renewal ran, is as the claim left it.
    expect((await deliveryLease(s.ctx.db, b!))?.leaseUntil).toBe(now + 120_000);
    expect((await deliveryLease(s.ctx.db, a!))?.leaseUntil).toBe(now + 60_000);
  });
});
