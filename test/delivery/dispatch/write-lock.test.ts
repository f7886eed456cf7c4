/**
 * Another process (a CLI import) holding the write lock: the dispatcher never waits for it in
 * SQLite's busy wait, which would hold the event loop; claims, results and renewals wait for it on
 * timers instead.
 */
import { describe, expect, it, vi } from 'vitest';
import { changeTransactionStatus } from '../../../src/services/transactions.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { listAttempts } from '../../../src/store/delivery-attempts.js';
import { onPostgres } from '../../support/postgres.js';
import { holdWriteLock } from '../../support/write-lock.js';
import { newTx, setup, whileDispatching } from './support.js';

// PostgreSQL has no database-wide write lock: its writers wait for the rows they touch alone.
describe.skipIf(onPostgres)('while another process holds the write lock', () => {
  it('the dispatcher neither claims nor records in a busy wait: the event loop runs on, and the result of a send made meanwhile is written once the lock is free', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 20 });
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    receiver.setResponder((_r, res) => void held.then(() => res.end('ok')));
    const tx = await newTx(ctx, org.org.id);
    await changeTransactionStatus(ctx, tx.id, 'Processing');
    await whileDispatching(ctx, answer, async () => {
      await receiver.waitFor(2); // both sends in flight
      const other = holdWriteLock(ctx.config.database.path); // another process (a CLI import) takes the write lock
      // Given back before the dispatcher stops, whatever fails here: its stop would wait for it in the busy wait.
      try {
        answer(); // the endpoint answers while the lock is held: the results cannot be written yet
        let ticks = 0;
        const ticker = setInterval(() => ticks++, 10);
        await new Promise((r) => setTimeout(r, 300));
        clearInterval(ticker);
        // A busy wait on this thread would have held the ticker (and this test) until the busy timeout.
        expect(ticks).toBeGreaterThan(10);
        expect(await listDeliveries(ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(0);
      } finally {
        other.release();
      }
      await vi.waitFor(async () => expect(await listDeliveries(ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(2));
    });
    // Each event sent once, and each send's 200 recorded as its one attempt.
    expect(receiver.received).toHaveLength(2);
    for (const d of await listDeliveries(ctx.db, { limit: 10 }))
      expect((await listAttempts(ctx.db, d.id)).map((a) => a.statusCode)).toEqual([200]);
  });

  it('a queued row whose lease ran short while another process holds the write lock is not sent, and the loop is not held', async () => {
    const { ctx, org, receiver } = await setup({
      'delivery.perEndpointConcurrency': 1,
      'delivery.timeoutMs': 1_000,
      'delivery.leaseMs': 1,
      'delivery.pollIntervalMs': 3_600_000,
      'database.busyTimeoutMs': 1_000,
    });
    let answer!: () => void;
    const first = new Promise<void>((r) => (answer = r));
    receiver.setResponder((_r, res) => void (receiver.received.length === 1 ? first : Promise.resolve()).then(() => res.end('ok')));
    for (let i = 0; i < 3; i++) await newTx(ctx, org.org.id);
    await whileDispatching(ctx, answer, async () => {
      await receiver.waitFor(1);
      const other = holdWriteLock(ctx.config.database.path); // a CLI import holds the lock: no renewal can be written
      // Given back before the dispatcher stops, whatever fails here: its stop would wait for it in the busy wait.
      try {
        ctx.clock.advance(9_000); // the queued rows' leases (10 s) run short of a send (1 s + 1 s)
        let ticks = 0;
        const ticker = setInterval(() => ticks++, 10);
        answer(); // the slot frees: the queued rows are checked, one after the other
        await new Promise((r) => setTimeout(r, 1_000));
        clearInterval(ticker);
        // Each check waiting in SQLite (1 s to renew, 1 s to give back) would have held this thread for 4 s.
        expect(ticks).toBeGreaterThan(20);
        expect(receiver.received).toHaveLength(1);
      } finally {
        other.release();
      }
    });
  });
});
