/**
 * PostgreSQL plans from the statistics of the last ANALYZE, and a queue's last one may have seen
 * no pending row at all (every delivery done, or a backlog still skipped): `state = 'pending'` is
 * then estimated at one row. A statement that finds its row by primary key must keep finding it so
 * when a backlog arrives before the next ANALYZE, not walk every pending row through the
 * (state, next_attempt_at) index.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Sql } from '../../src/db/database.js';
import { sendTarget } from '../../src/store/delivery-claims.js';
import { onPostgres } from '../support/postgres.js';
import { setup } from './dispatch/support.js';

describe.runIf(onPostgres)('statements by primary key under statistics that saw no pending row', () => {
  it('the read before a send seeks its row by primary key, whatever the backlog', async () => {
    const s = await setup();
    const { db } = s.ctx;
    const orgId = s.org.org.id;
    const at = '2026-01-01T00:00:00.000Z';
    const add = async (prefix: string, count: number, state: 'pending' | 'delivered') => {
      await db.run(
        `INSERT INTO events (id, org_id, type, body, created_at)
           SELECT ? || g, ?, 'Transaction_Updated', '{}', ? FROM generate_series(1, CAST(? AS INTEGER)) g`,
        [`evt_${prefix}_`, orgId, at, count],
      );
      await db.run(
        `INSERT INTO deliveries (id, event_id, webhook_id, org_id, state, attempts, next_attempt_at, claimed_by, lease_until, created_at, updated_at)
           SELECT ? || g, ? || g, ?, ?, ?, 0, g, ?, CAST(? AS BIGINT), ?, ? FROM generate_series(1, CAST(? AS INTEGER)) g`,
        [
          `dlv_${prefix}_`,
          `evt_${prefix}_`,
          s.webhookId,
          orgId,
          state,
          state === 'pending' ? 'owner' : null,
          state === 'pending' ? 10_000 : null,
          at,
          at,
          count,
        ],
      );
    };
    await add('done', 2000, 'delivered');
    await db.exec('ANALYZE deliveries');
    await add('due', 2000, 'pending');

    const get = vi.spyOn(db, 'get');
    const target = await sendTarget(db, 'dlv_due_2000', 'owner', 0, null, 5_000);
    const [statement, params] = get.mock.calls[0]!;
    get.mockRestore();
    expect(target).toMatchObject({ nextAttemptAt: 2000 });
    const text = typeof statement === 'string' ? statement : statement.postgres;
    const [plan] = await db.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}` as Sql, params);
    const json = JSON.stringify(plan!['QUERY PLAN']);
    expect(json).toContain('"Index Name":"deliveries_pkey"');
    expect(json).not.toContain('deliveries_due');
  });
});
