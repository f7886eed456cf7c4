/**
 * Deadlocks on PostgreSQL, made for real between transactions opened through the db layer
 * (src/db/postgres.ts): the transaction PostgreSQL picks as the victim rolled back whole and is run
 * again until it commits; with no runs again left the conflict reaches the API as 503
 * database_conflict, never a 500. And the lock order of a webhook's DELETE: its webhook row first,
 * as PATCH takes it, and so does the dispatcher's result batch that disables one, so none of them
 * waits on another in a circle; a result batch that still ends in a conflict loses no result.
 */
import { describe, expect, it, vi } from 'vitest';
import { isTransientConflict, type Db } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { Recorder } from '../../src/delivery/dispatch/record.js';
import { EventSignatures } from '../../src/delivery/event-signatures.js';
import { endsWebhook } from '../../src/domain/delivery-rules.js';
import { emitEvent } from '../../src/services/outbox.js';
import { getDelivery } from '../../src/store/deliveries.js';
import { getWebhookById } from '../../src/store/webhooks.js';
import { claimedJobs } from '../delivery/dispatch/support.js';
import { makeApi, makeContext, makeOrg, type TestContext } from '../support/context.js';
import { until } from '../support/own-postgres.js';

const BASE = '/v1/notifications/webhooks/settings';

const postgresOf = (ctx: TestContext): PostgresDatabase => {
  if (!(ctx.db instanceof PostgresDatabase)) throw new Error('this suite runs on PostgreSQL');
  return ctx.db;
};

/** Resolves once some other session of this database waits for a row lock (a transaction blocked behind ours). */
async function someoneWaitsForALock(db: Db, self: Db): Promise<void> {
  const me = await self.value<number>('SELECT pg_backend_pid()');
  await until(
    async () =>
      (await db.value<number>(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> ?",
        [me],
      ))! > 0,
    'a transaction waiting for a lock',
  );
}

/** A one-shot signal between two transactions. */
function signal(): { fire: () => void; fired: Promise<void> } {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

/**
 * Two transactions that take rows 1 and 2 of a table in opposite orders, the second only once the
 * first waits for it: a deadlock, which PostgreSQL ends by rolling one back. Each body counts its
 * runs; only its first run waits for the other, so a run again goes straight through.
 */
async function deadlock(db: Db): Promise<{ outcomes: PromiseSettledResult<void>[]; runs: number[] }> {
  await db.exec('CREATE TABLE pair (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO pair VALUES (1, 0), (2, 0)');
  const runs = [0, 0];
  const firstHolds = signal();
  const secondHolds = signal();
  const first = db.transaction(async (tx) => {
    const run = ++runs[0]!;
    await tx.run('UPDATE pair SET n = n + 1 WHERE id = 1');
    if (run === 1) {
      firstHolds.fire();
      await secondHolds.fired;
    }
    await tx.run('UPDATE pair SET n = n + 1 WHERE id = 2');
  });
  const second = db.transaction(async (tx) => {
    const run = ++runs[1]!;
    if (run === 1) await firstHolds.fired;
    await tx.run('UPDATE pair SET n = n + 1 WHERE id = 2');
    if (run === 1) {
      secondHolds.fire();
      await someoneWaitsForALock(db, tx);
    }
    await tx.run('UPDATE pair SET n = n + 1 WHERE id = 1');
  });
  return { outcomes: await Promise.allSettled([first, second]), runs };
}

describe('transient conflicts on PostgreSQL', () => {
  it("runs a deadlock's victim again from BEGIN: both transactions commit, each once", async () => {
    const ctx = await makeContext();
    const { outcomes, runs } = await deadlock(ctx.db);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    // One of them was the victim and ran twice; its first run's writes were rolled back.
    expect(runs.sort()).toEqual([1, 2]);
    expect(await ctx.db.all('SELECT id, n FROM pair ORDER BY id')).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('throws the deadlock at once to a transaction that must not run twice, and when no runs again are left', async () => {
    const ctx = await makeContext();
    postgresOf(ctx).conflictReruns = 0;
    const { outcomes, runs } = await deadlock(ctx.db);
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect((failed[0]!.reason as { code?: string }).code).toBe('40P01');
    expect(isTransientConflict(failed[0]!.reason)).toBe(true);
    expect(runs).toEqual([1, 1]);

    const once = await makeContext();
    let bodyRuns = 0;
    const conflict = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    await expect(
      once.db.transaction(
        async () => {
          bodyRuns++;
          throw conflict;
        },
        { rerunOnConflict: false },
      ),
    ).rejects.toBe(conflict);
    expect(bodyRuns).toBe(1);
    // By default the same body runs again (three times more), then the conflict goes to the caller.
    await expect(
      once.db.transaction(async () => {
        bodyRuns++;
        throw conflict;
      }),
    ).rejects.toBe(conflict);
    expect(bodyRuns).toBe(1 + 1 + postgresOf(once).conflictReruns);
  });

  /**
   * A PATCH that disables a webhook locks the webhook row, then its pending deliveries. A transaction
   * that holds one of those deliveries and then wants the webhook row closes the circle, and the
   * PATCH, waiting first, is PostgreSQL's victim.
   */
  async function patchInDeadlock(ctx: TestContext): Promise<{ status: number; body: Record<string, unknown>; retryAfter?: string }> {
    const { http, tokens } = makeApi(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const id = (await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/hook' })).body.id as string;
    await emitEvent(ctx, org.id, 'Transaction_Updated');
    const deliveryId = (await ctx.db.value<string>("SELECT id FROM deliveries WHERE webhook_id = ? AND state = 'pending'", [id]))!;
    const patched = signal();
    const holder = ctx.db.transaction(
      async (tx) => {
        // Waits for no deadlock check of its own before the PATCH's (1 s) runs.
        await tx.exec("SET LOCAL deadlock_timeout = '30s'");
        await tx.run('UPDATE deliveries SET updated_at = updated_at WHERE id = ?', [deliveryId]);
        patched.fire();
        await someoneWaitsForALock(ctx.db, tx);
        await tx.run('UPDATE webhooks SET updated_at = updated_at WHERE id = ?', [id]);
      },
      { rerunOnConflict: false },
    );
    await patched.fired;
    const res = await http.patch(`${BASE}/${id}`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/hook', enabled: false });
    await holder;
    return { status: res.status, body: res.body as Record<string, unknown>, retryAfter: res.headers['retry-after'] as string | undefined };
  }

  it('answers 503 database_conflict with Retry-After, not a 500, when the runs again are used up', async () => {
    const ctx = await makeContext();
    postgresOf(ctx).conflictReruns = 0;
    const res = await patchInDeadlock(ctx);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'database_conflict', status: 503 });
    expect(String(res.body.detail)).toContain('nothing was written');
    expect(res.retryAfter).toBe('1');
    // Nothing of the PATCH was written: the webhook is still enabled.
    expect(await ctx.db.value('SELECT enabled FROM webhooks')).toBe(1);
  });

  it('commits a PATCH that lost a deadlock by running its transaction again', async () => {
    const ctx = await makeContext();
    const res = await patchInDeadlock(ctx);
    expect(res.status).toBe(200);
    expect(res.body.enabled).toBe(false);
    expect(await ctx.db.value("SELECT state FROM deliveries WHERE state <> 'pending'")).toBe('skipped');
  });

  it("DELETE locks the webhook row before its pending deliveries, in PATCH's order", async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const id = (await http.post(BASE).set('authorization', auth).send({ url: 'http://127.0.0.1:9/hook' })).body.id as string;
    await emitEvent(ctx, org.id, 'Transaction_Updated');
    const deleting = signal();
    let deleted: Promise<number> | undefined;
    const heldDeliveries = await ctx.db.transaction(
      async (tx) => {
        // The webhook row, as a PATCH holds it while it goes on to the deliveries.
        await tx.run('UPDATE webhooks SET updated_at = updated_at WHERE id = ?', [id]);
        deleted = (async () => {
          deleting.fire();
          return (await http.delete(`${BASE}/${id}`).set('authorization', auth)).status;
        })();
        await deleting.fired;
        await someoneWaitsForALock(ctx.db, tx);
        // The DELETE waits for the webhook row holding none of its deliveries: no circle can close.
        return await tx.savepoint((sp) =>
          sp.all("SELECT id FROM deliveries WHERE webhook_id = ? AND state = 'pending' FOR UPDATE NOWAIT", [id]),
        );
      },
      { rerunOnConflict: false },
    );
    expect(heldDeliveries.ok).toBe(true);
    expect(await deleted).toBe(204);
    expect(await ctx.db.value('SELECT state FROM deliveries')).toBe('cancelled');
  });

  it('a result batch that disables a webhook locks the webhook row before any of its deliveries', async () => {
    const policy = { scheduleSeconds: [0, 5, 60], jitter: 0 };
    const { ctx, webhook, jobs } = await claimedJobs(2, 'me');
    const ended: string[] = [];
    const recorder = new Recorder(ctx, {
      owner: 'me',
      policy,
      random: () => 0.5,
      signatures: new EventSignatures(ctx),
      ended: (id) => ended.push(id),
    });
    const results = [
      { statusCode: 200, error: null, responseBody: '', retryAfter: undefined, durationMs: 3 },
      { statusCode: 410, error: null, responseBody: '', retryAfter: undefined, durationMs: 3 },
    ];
    const recorded = jobs.map(() => signal());
    const heldDeliveries = await ctx.db.transaction(
      async (tx) => {
        // The webhook row, as a PATCH or DELETE holds it while it goes on to the deliveries.
        await tx.run('UPDATE webhooks SET updated_at = updated_at WHERE id = ?', [webhook.id]);
        // The results arrive once the row is held (a gathering flush could otherwise come first).
        jobs.forEach((job, i) =>
          recorder.add({
            job,
            startedMs: ctx.clock.now(),
            result: results[i]!,
            done: recorded[i]!.fire,
            endsWebhook: endsWebhook(policy, job, results[i]!),
          }),
        );
        void recorder.flush();
        await someoneWaitsForALock(ctx.db, tx);
        // The batch waits for the webhook row holding none of its deliveries, which the PATCH can take.
        return await tx.savepoint((sp) => sp.all('SELECT id FROM deliveries WHERE webhook_id = ? FOR NO KEY UPDATE NOWAIT', [webhook.id]));
      },
      { rerunOnConflict: false },
    );
    expect(heldDeliveries.ok).toBe(true);
    await Promise.all(recorded.map((r) => r.fired));
    expect(ended).toEqual([webhook.id]);
    expect(await getDelivery(ctx.db, jobs[0]!.id)).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(await getDelivery(ctx.db, jobs[1]!.id)).toMatchObject({ state: 'failed', attempts: 1, lastStatus: 410 });
    expect(await getWebhookById(ctx.db, webhook.id)).toMatchObject({ enabled: false, disabledReason: 'endpoint answered 410 Gone' });
  });

  it('a result batch whose transaction ends in a conflict on every run keeps its results and records them a moment later', async () => {
    const policy = { scheduleSeconds: [0, 5, 60], jitter: 0 };
    const { ctx, jobs } = await claimedJobs(2, 'me');
    const db = postgresOf(ctx);
    db.conflictReruns = 0;
    // The batch's first two transactions (the batch, then what would record it result by result)
    // run and then end in a deadlock, as one PostgreSQL picked as its victim; the third commits.
    const transaction = db.transaction.bind(db);
    let conflicts = 0;
    vi.spyOn(db, 'transaction').mockImplementation((fn, opts) =>
      transaction(async (tx) => {
        const value = await fn(tx);
        if (conflicts < 2) {
          conflicts++;
          throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        }
        return value;
      }, opts),
    );
    const recorder = new Recorder(ctx, {
      owner: 'me',
      policy,
      random: () => 0.5,
      signatures: new EventSignatures(ctx),
      ended: () => undefined,
    });
    const recorded = jobs.map(() => signal());
    const result = { statusCode: 200, error: null, responseBody: '', retryAfter: undefined, durationMs: 3 };
    jobs.forEach((job, i) => recorder.add({ job, startedMs: ctx.clock.now(), result, done: recorded[i]!.fire, endsWebhook: false }));
    await recorder.flush();
    await Promise.all(recorded.map((r) => r.fired));
    expect(conflicts).toBe(2);
    for (const job of jobs) expect(await getDelivery(ctx.db, job.id)).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(ctx.logs.lines.filter((l) => l.msg === 'delivery bookkeeping failed')).toEqual([]);
  });
});
