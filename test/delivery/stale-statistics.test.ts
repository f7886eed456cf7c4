/**
 * PostgreSQL plans from the statistics of the last ANALYZE, and a queue's last one may have seen no
 * pending row at all (every delivery done, or a backlog written while its webhook was off). The
 * statements that find pending rows keep their indexes when a backlog arrives before the next
 * ANALYZE: the read before a send seeks its row by primary key and the claim a webhook's due rows by
 * (webhook_id, state, …), neither walks every pending row through (state, next_attempt_at). And
 * a list of ids passed as one parameter is planned as a few rows, whatever the statistics say of
 * the table it picks from: probed by its index, not hashed against a scan of the whole table. So
 * are a claim's picked rows and a result batch's, whose state check is kept out of the plan: each
 * row is probed by its id, never reached by a walk of the queue's pending rows.
 */
import { describe, expect, it, vi } from 'vitest';
import { addSyntheticDeliveries, addSyntheticEvents } from '../../bench/synthetic-rows.js';
import type { Db, Sql, SqlParams } from '../../src/db/database.js';
import { claimDue, sendTarget, type ClaimCursor } from '../../src/store/delivery-claims.js';
import { finishAttempts } from '../../src/store/delivery-results.js';
import { bodiesWithSignatures } from '../../src/store/event-signatures.js';
import { onPostgres } from '../support/postgres.js';
import { setup } from './dispatch/support.js';

type Setup = Awaited<ReturnType<typeof setup>>;

const AT = '2026-01-01T00:00:00.000Z';

/**
 * `count` events and a delivery of each to the setup's webhook, ids `dlv_<prefix>_1…`, due at 1…;
 * pending ones leased by `owner` until 10,000.
 */
async function addDeliveries(s: Setup, prefix: string, count: number, state: 'pending' | 'delivered', owner = 'owner'): Promise<void> {
  const { webhookId, org } = s;
  await addSyntheticDeliveries(s.ctx.db, { prefix, orgId: org.org.id, webhookId, count, at: AT, state, lease: { owner, until: 10_000 } });
}

/** The plan PostgreSQL makes of a statement a store function ran, with its parameters. */
async function planOf(db: Db, statement: Sql, params: SqlParams | undefined): Promise<string> {
  const text = typeof statement === 'string' ? statement : statement.postgres;
  const [plan] = await db.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, params);
  return JSON.stringify(plan!['QUERY PLAN']);
}

describe.runIf(onPostgres)('statements on pending rows under statistics that saw none', () => {
  it('the read before a send and the claim keep their indexes when a backlog follows an ANALYZE of a drained queue', async () => {
    const s = await setup();
    const { db } = s.ctx;
    await addDeliveries(s, 'done', 2000, 'delivered');
    await db.exec('ANALYZE deliveries');
    await addDeliveries(s, 'due', 2000, 'pending');
    const get = vi.spyOn(db, 'get');
    const target = await sendTarget(db, 'dlv_due_2000', 'owner', 0, null, 5_000);
    const [read, readParams] = get.mock.calls[0]!;
    get.mockRestore();
    expect(target).toMatchObject({ nextAttemptAt: 2000 });
    const readPlan = await planOf(db, read, readParams);
    expect(readPlan).toContain('"Index Name":"deliveries_pkey"');
    expect(readPlan).not.toContain('deliveries_due');

    // The claim's statement, planned and not run (its leases are the test's own rows).
    const all = vi.spyOn(db, 'all').mockResolvedValueOnce([]);
    await claimDue(db, s.webhookId, 'other', 20_000, 80_000, 50);
    const [claim, claimParams] = all.mock.calls[0]!;
    all.mockRestore();
    const claimPlan = await planOf(db, claim, claimParams);
    expect(claimPlan).toContain('"Index Name":"deliveries_webhook_due"');
    expect(claimPlan).not.toContain('deliveries_due');
  });

  it("a claim's update and a result batch probe each of their rows by primary key, not a walk of the queue's pending rows", async () => {
    const s = await setup();
    const { db } = s.ctx;
    await addDeliveries(s, 'done', 2000, 'delivered');
    await addDeliveries(s, 'due', 2000, 'pending', 'other');
    await db.exec('ANALYZE deliveries');
    // The claim: its picked rows come from the webhook's due rows, and only from there.
    const all = vi.spyOn(db, 'all').mockResolvedValueOnce([]);
    await claimDue(db, s.webhookId, 'me', 20_000, 80_000, 50);
    const [claim, claimParams] = all.mock.calls[0]!;
    all.mockRestore();
    const claimPlan = await planOf(db, claim, claimParams);
    expect(claimPlan.split('"Index Name":"deliveries_webhook_due"')).toHaveLength(2);
    expect(claimPlan).toContain('"Index Name":"deliveries_pkey"');
    // A refill's claim starts its walk of the webhook's due rows at its cursor.
    // Planned and not run: the claim from the start that follows a short one is not run either.
    const cursorAll = vi.spyOn(db, 'all').mockResolvedValue([]);
    await claimDue(db, s.webhookId, 'me', 20_000, 80_000, 50, [], 'none', undefined, { nextAttemptAt: 1000, id: 'dlv_due_1000' });
    const [cursorClaim, cursorParams] = cursorAll.mock.calls[0]!;
    cursorAll.mockRestore();
    const cursorPlan = await planOf(db, cursorClaim, cursorParams);
    expect(cursorPlan).toMatch(/"Index Name":"deliveries_webhook_due"[^}]*"Index Cond":"[^"]*ROW\(next_attempt_at, id\) > ROW\(/);
    // A result batch of fifty of the other owner's rows.
    const results = Array.from({ length: 50 }, (_, i) => ({
      id: `dlv_due_${i + 1}`,
      state: 'delivered' as const,
      attempts: 1,
      step: 0,
      nextAttemptAt: i + 1,
      lastStatus: 200,
      lastError: null,
      deliveredAt: AT,
      at: AT,
      expectStep: 0,
      expectNextAttemptAt: i + 1,
    }));
    const column = vi.spyOn(db, 'column');
    expect(await finishAttempts(db, 'other', results)).toHaveProperty('size', 50);
    const [batch, batchParams] = column.mock.calls[0]!;
    column.mockRestore();
    const batchPlan = await planOf(db, batch, batchParams);
    expect(batchPlan).toContain('"Index Name":"deliveries_pkey"');
    expect(batchPlan).not.toContain('deliveries_webhook_due');
    expect(batchPlan).not.toContain('deliveries_due');
    expect(batchPlan).not.toContain('"Node Type":"Seq Scan"');
  });

  it("a refill's claim is planned with its cursor at every run, never kept as a connection's generic plan", async () => {
    const s = await setup();
    const { db } = s.ctx;
    await addDeliveries(s, 'done', 2000, 'delivered');
    await addDeliveries(s, 'due', 2000, 'pending');
    await db.exec('ANALYZE deliveries');
    // Eight refills on one connection, each after the last row of the one before: a named statement
    // would be planned generically from its sixth run on.
    const { taken, named } = await db.transaction(async (tx) => {
      const taken: string[] = [];
      let after: ClaimCursor | undefined;
      for (let i = 0; i < 8; i++) {
        const rows = await claimDue(tx, s.webhookId, 'me', 20_000, 80_000, 5, [], 'none', undefined, after);
        taken.push(...rows.map((r) => r.id));
        after = rows.at(-1);
      }
      const named = await tx.value<number>(
        "SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE 'WITH picked AS%(c.next_attempt_at, c.id) > ($%'",
      );
      return { taken, named: Number(named) };
    });
    expect(taken).toEqual(Array.from({ length: 40 }, (_, i) => `dlv_due_${i + 1}`));
    expect(named).toBe(0);
  });

  it("a pass's read of its events' bodies probes the events by id, not a scan of the table, once statistics know it", async () => {
    const s = await setup();
    const { db } = s.ctx;
    await addSyntheticEvents(db, { prefix: 'evt_many_', orgId: s.org.org.id, count: 4000, at: AT });
    await db.exec('ANALYZE events');
    const all = vi.spyOn(db, 'all');
    const ids = Array.from({ length: 30 }, (_, i) => `evt_many_${i + 1}`);
    expect(await bodiesWithSignatures(db, 'wsk_none', ids)).toHaveLength(30);
    const [read, params] = all.mock.calls[0]!;
    all.mockRestore();
    const json = await planOf(db, read, params);
    expect(json).toContain('"Index Name":"events_pkey"');
    expect(json).not.toContain('"Node Type":"Seq Scan"');
  });

  it('the table keeps no statistics of a delivery state, which a drained queue would make one row', async () => {
    const s = await setup();
    expect(
      await s.ctx.db.value("SELECT attstattarget FROM pg_attribute WHERE attrelid = 'deliveries'::regclass AND attname = 'state'"),
    ).toBe(0);
  });
});
