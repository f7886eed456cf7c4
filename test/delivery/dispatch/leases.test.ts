/**
 * Leases: a leased row is never sent twice at once, by one process or two; the rows a process holds
 * are renewed while they wait, on a timer of their own, and checked again before they are sent.
 */
import { describe, expect, it, vi } from 'vitest';
import { CLAIM_ROUNDS } from '../../../src/delivery/dispatch/claim-shares.js';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { CLAIM_FRESH_MS, Leases, SignalledChanges } from '../../../src/delivery/dispatch/leases.js';
import { disableWebhook } from '../../../src/services/webhooks.js';
import { getDelivery } from '../../../src/store/deliveries.js';
import { claimDue, deliveryLease, leasedDeliveries, renewLeases } from '../../../src/store/delivery-claims.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { listAttempts } from '../../../src/store/delivery-attempts.js';
import { crossNodeWakeups } from '../../../src/cluster/wakeups.js';
import { makeContext, sameDatabase, type TestContext } from '../../support/context.js';
import { onPostgres } from '../../support/postgres.js';
import { claimedJobs, countedBacklog, distinctEvents, holdAnswers, newTx, setup, whileDispatching } from './support.js';

describe('leases', () => {
  it('never sends a leased attempt twice; an expired lease (crash mid-send) is claimable again', async () => {
    const { ctx, org, receiver, dispatcher } = await setup();
    await newTx(ctx, org.org.id);
    const [d] = await listDeliveries(ctx.db, { limit: 1 });
    const now = ctx.clock.now();
    expect((await claimDue(ctx.db, d!.webhookId, 'dead-process', now, now + ctx.config.delivery.leaseMs, 1)).map((r) => r.id)).toEqual([
      d!.id,
    ]);
    // Leased: another claim does not take it.
    expect(await claimDue(ctx.db, d!.webhookId, 'someone-else', now, now + 1000, 10)).toEqual([]);
    expect((await deliveryLease(ctx.db, d!.id))?.claimedBy).toBe('dead-process');
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(ctx.config.delivery.leaseMs + 1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect((await getDelivery(ctx.db, d!.id))!.state).toBe('delivered');
  });

  it('a claim takes at most its limit, the oldest due first, and the next claim the rest', async () => {
    const { ctx, org } = await setup();
    for (let i = 0; i < 5; i++) await newTx(ctx, org.org.id);
    const all = await listDeliveries(ctx.db, { limit: 10 });
    const now = ctx.clock.now();
    const first = await claimDue(ctx.db, all[0]!.webhookId, 'a', now, now + 60_000, 2);
    expect(first).toHaveLength(2);
    const second = await claimDue(ctx.db, all[0]!.webhookId, 'b', now, now + 60_000, 10);
    expect(second).toHaveLength(3);
    expect(new Set([...first, ...second].map((r) => r.id)).size).toBe(5);
  });

  it('two processes (two connections to one file) running at once send each delivery exactly once', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 5 });
    // Each answer waits a little, so both dispatchers have sends in flight at the same time.
    receiver.setResponder((_r, res) => void setTimeout(() => res.end('ok'), 2));
    const EVENTS = 60;
    for (let i = 0; i < EVENTS; i++) await newTx(ctx, org.org.id);
    // A second context is a second connection to the same database (as a second process has), with its own clock.
    const other = await makeContext({ ...sameDatabase(ctx), dataDir: ctx.dataDir, 'delivery.pollIntervalMs': 5 });
    other.clock.set(ctx.clock.now());
    const a = new Dispatcher(ctx, { random: () => 0.5, owner: 'process-a' });
    const b = new Dispatcher(other, { random: () => 0.5, owner: 'process-b' });
    a.start();
    b.start();
    try {
      await receiver.waitFor(EVENTS);
      // Both took part, so the claims really raced.
      await Promise.all([a.drain(), b.drain()]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(a.stats().claimed).toBeGreaterThan(0);
    expect(b.stats().claimed).toBeGreaterThan(0);
    expect(a.stats().claimed + b.stats().claimed).toBe(EVENTS);
    const ids = receiver.received.map((r) => String(r.headers['x-event-id']));
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    expect(await listDeliveries(ctx.db, { state: 'delivered', limit: 100 })).toHaveLength(EVENTS);
    let attempts = 0;
    for (const d of await listDeliveries(ctx.db, { limit: 100 })) attempts += (await listAttempts(ctx.db, d.id)).length;
    expect(attempts).toBe(EVENTS);
  });

  it('wall clock jumps past the leases of rows still in hand: a second pass does not take them again, each is sent once', async () => {
    const s = await setup({ 'delivery.perEndpointConcurrency': 4, 'delivery.pollIntervalMs': 3_600_000 });
    const release = holdAnswers(s.receiver);
    for (let i = 0; i < 8; i++) await newTx(s.ctx, s.org.org.id);
    const first = s.dispatcher.runOnce();
    await s.receiver.waitFor(4); // four in flight, four queued behind them
    // A VM resumed, or NTP stepped the clock: every lease in the database has ended.
    s.ctx.clock.advance(10 * 60_000);
    const second = s.dispatcher.runOnce();
    release();
    expect(await second).toBe(0);
    expect(await first).toBe(8);
    const ids = s.receiver.received.map((r) => String(r.headers['x-event-id']));
    expect(ids).toHaveLength(8);
    expect(new Set(ids).size).toBe(8);
    expect(await listDeliveries(s.ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(8);
  });
});

describe('leases of rows that wait long for a send slot', () => {
  const leaseOf = async (ctx: TestContext, id: string) => (await deliveryLease(ctx.db, id))!.leaseUntil;

  it('are renewed while this process holds them, so another process cannot take and send them meanwhile', async () => {
    // Lease: 5 timeouts + 5 s = 30 s. One send slot; the endpoint stalls, so the other rows wait.
    const { ctx, org, receiver, webhookId } = await setup({
      'delivery.perEndpointConcurrency': 1,
      'delivery.timeoutMs': 5_000,
      'delivery.leaseMs': 1,
      'delivery.pollIntervalMs': 20,
    });
    const release = holdAnswers(receiver);
    for (let i = 0; i < 3; i++) await newTx(ctx, org.org.id);
    await whileDispatching(ctx, release, async () => {
      await receiver.waitFor(1);
      const ids = (await leasedDeliveries(ctx.db)).map((d) => d.id);
      expect(ids).toHaveLength(3);
      // 36 s in three steps: past the first lease, each step past a third of a lease.
      for (let step = 0; step < 3; step++) {
        ctx.clock.advance(12_000);
        const now = ctx.clock.now();
        await vi.waitFor(async () => {
          for (const id of ids) expect(await leaseOf(ctx, id)).toBe(now + 30_000);
        });
      }
      // Another process looking for due rows finds none of them.
      const now = ctx.clock.now();
      expect(await claimDue(ctx.db, webhookId, 'another-process', now, now + 30_000, 10)).toEqual([]);
    });
  });

  it('a queued row whose lease ran short is renewed before it is sent; one another process took meanwhile is not sent', async () => {
    const { ctx, org, receiver, webhookId } = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.pollIntervalMs': 3_600_000 });
    // The first request is held until answer(); the ones after it are answered at once.
    let answer!: () => void;
    const first = new Promise<void>((r) => (answer = r));
    receiver.setResponder((_r, res) => void (receiver.received.length === 1 ? first : Promise.resolve()).then(() => res.end('ok')));
    for (let i = 0; i < 3; i++) await newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    const sent = dispatcher.runOnce();
    await receiver.waitFor(1);
    const all = (await listDeliveries(ctx.db, { webhookId, limit: 10 })).map((d) => d.id);
    const queued: string[] = [];
    for (const id of all) {
      const { eventId } = (await getDelivery(ctx.db, id))!;
      if (!receiver.received.some((r) => r.headers['x-event-id'] === eventId)) queued.push(id);
    }
    expect(queued).toHaveLength(2);
    // They wait longer than what their claim read stays fresh, so each is read before it goes.
    ctx.clock.advance(CLAIM_FRESH_MS + 1);
    // One queued row's lease runs short (its renewal failed); the other's ended and another process took it.
    expect(await renewLeases(ctx.db, dispatcher.owner, [queued[0]!], ctx.clock.now() + 5_000)).toBe(1);
    // Another process, whose clock says the lease has ended, claims that row alone.
    const later = ctx.clock.now() + 10 * 60_000;
    const others = all.filter((id) => id !== queued[1]);
    expect((await claimDue(ctx.db, webhookId, 'another-process', later, later + 60_000, 10, others)).map((r) => r.id)).toEqual([queued[1]]);
    answer();
    await sent;
    const sentEvents = receiver.received.map((r) => r.headers['x-event-id']);
    expect(sentEvents).toContain((await getDelivery(ctx.db, queued[0]!))!.eventId);
    expect(sentEvents).not.toContain((await getDelivery(ctx.db, queued[1]!))!.eventId);
    expect(await getDelivery(ctx.db, queued[0]!)).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(await listAttempts(ctx.db, queued[1]!)).toEqual([]);
    await dispatcher.stop();
  });
});

describe('lease renewal on its own timer', () => {
  it('renews every third of a lease even when pollIntervalMs is longer', async () => {
    // Lease: 5 timeouts + 5 s = 30 s, so a renewal every 10 s; the poll timer (an hour) never fires.
    // Only setInterval is faked: sends, their deadlines and the receiver run on real time.
    const { ctx, org, receiver } = await setup({
      'delivery.perEndpointConcurrency': 1,
      'delivery.timeoutMs': 5_000,
      'delivery.leaseMs': 1,
      'delivery.pollIntervalMs': 3_600_000,
    });
    const release = holdAnswers(receiver);
    for (let i = 0; i < 2; i++) await newTx(ctx, org.org.id);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    // A renewal is async: the test waits for the ones the timer started, not for a turn of the loop.
    const renewals = vi.spyOn(Leases.prototype, 'renew');
    try {
      await whileDispatching(ctx, release, async () => {
        await receiver.waitFor(1);
        ctx.clock.advance(12_000);
        renewals.mockClear();
        vi.advanceTimersByTime(10_000);
        expect(renewals).toHaveBeenCalledTimes(1);
        await Promise.all(renewals.mock.results.map((r) => r.value as Promise<void>));
        const now = ctx.clock.now();
        expect((await leasedDeliveries(ctx.db)).map((d) => d.leaseUntil)).toEqual([now + 30_000, now + 30_000]);
      });
    } finally {
      renewals.mockRestore();
      vi.useRealTimers();
    }
  });
});

/** Leases held by 'me', with a count of the changes signalled of their own (the test closes it). */
const leasesOf = (ctx: TestContext) => new Leases(ctx, 'me', new SignalledChanges(ctx.signals.webhookChanged));

describe('the lease keeper', () => {
  it('leases for at least the wait of the last claim round and its own send, plus a margin', async () => {
    const lease = async (leaseMs: number, timeoutMs: number) =>
      leasesOf(await makeContext({ 'delivery.leaseMs': leaseMs, 'delivery.timeoutMs': timeoutMs })).ms;
    expect(await lease(1, 5_000)).toBe((CLAIM_ROUNDS + 1) * 5_000 + 5_000);
    expect(await lease(90_000, 5_000)).toBe(90_000);
  });

  it('holds each claimed row until its job is over', async () => {
    const leases = leasesOf(await makeContext());
    leases.hold('wh_a', [{ id: 'd1' }, { id: 'd2' }]);
    leases.hold('wh_b', [{ id: 'd3' }]);
    expect([leases.heldIds('wh_a'), leases.heldIds('wh_b'), leases.heldIds('wh_c'), leases.holding]).toEqual([['d1', 'd2'], ['d3'], [], 3]);
    leases.letGo('wh_a', 'd1');
    leases.letGo('wh_b', 'd3');
    leases.letGo('wh_c', 'd9');
    expect([leases.heldIds('wh_a'), leases.heldIds('wh_b'), leases.holding]).toEqual([['d2'], [], 1]);
  });

  it('renews the leases of the rows it holds, and only those, at most every third of a lease', async () => {
    const { ctx, webhook, rows } = await claimedJobs(3, 'me');
    const leases = leasesOf(ctx);
    const until = async () => {
      const out: (number | null)[] = [];
      for (const r of rows) out.push((await deliveryLease(ctx.db, r.id))!.leaseUntil);
      return out;
    };
    const claimedUntil = await until();
    leases.hold(webhook.id, rows.slice(0, 2));
    ctx.clock.advance(1_000);
    await leases.renew();
    const renewedAt = ctx.clock.now();
    expect(await until()).toEqual([renewedAt + leases.ms, renewedAt + leases.ms, claimedUntil[2]]);
    ctx.clock.advance(leases.ms / 3 - 1);
    await leases.renew();
    expect(await until()).toEqual([renewedAt + leases.ms, renewedAt + leases.ms, claimedUntil[2]]);
    ctx.clock.advance(1);
    await leases.renew();
    expect(await until()).toEqual([ctx.clock.now() + leases.ms, ctx.clock.now() + leases.ms, claimedUntil[2]]);
  });

  it('before a send: the row’s target while it is ours and due, with a lease long enough for the send', async () => {
    const { ctx, webhook, rows, jobs } = await claimedJobs(2, 'me');
    const leases = leasesOf(ctx);
    expect(await leases.beforeSend(jobs[0]!, false)).toEqual({
      url: webhook.url,
      keyRetired: false,
      nextAttemptAt: rows[0]!.nextAttemptAt,
    });
    // A lease too short for the send is renewed first, when the row is still ours.
    expect(await renewLeases(ctx.db, 'me', [rows[1]!.id], ctx.clock.now() + ctx.config.delivery.timeoutMs)).toBe(1);
    expect(await leases.beforeSend(jobs[1]!, false)).toMatchObject({ url: webhook.url });
    expect((await deliveryLease(ctx.db, rows[1]!.id))!.leaseUntil).toBe(ctx.clock.now() + leases.ms);
  });

  it('before a send: gone when another process took the row, which stays theirs', async () => {
    const { ctx, webhook, rows, jobs } = await claimedJobs(1, 'me');
    const later = ctx.clock.now() + 10 * 60_000;
    expect(await claimDue(ctx.db, webhook.id, 'other', later, later + 60_000, 1)).toHaveLength(1);
    expect(await leasesOf(ctx).beforeSend(jobs[0]!, false)).toBe('gone');
    expect((await deliveryLease(ctx.db, rows[0]!.id))!.claimedBy).toBe('other');
    expect(ctx.logs.lines.filter((l) => l.msg === 'delivery not sent: its webhook or row changed while it waited')).toHaveLength(1);
  });

  it('before a send: gone, its lease given back, when its webhook was disabled or a result that ends it is not recorded yet', async () => {
    const { ctx, webhook, rows, jobs } = await claimedJobs(2, 'me');
    const leases = leasesOf(ctx);
    // The database still says enabled and due; the webhook is ending.
    expect(await leases.beforeSend(jobs[0]!, true)).toBe('gone');
    expect(await deliveryLease(ctx.db, rows[0]!.id)).toEqual({ claimedBy: null, leaseUntil: null });
    await disableWebhook(ctx, webhook.id, 'borderd webhooks disable');
    expect(await leases.beforeSend(jobs[1]!, false)).toBe('gone');
    expect(await deliveryLease(ctx.db, rows[1]!.id)).toEqual({ claimedBy: null, leaseUntil: null });
  });

  it('before a send: unread when the check itself fails, and the row goes as claimed', async () => {
    const { ctx, jobs } = await claimedJobs(1, 'me');
    await ctx.db.close();
    expect(await leasesOf(ctx).beforeSend(jobs[0]!, false)).toBe('unread');
    expect(ctx.logs.lines.some((l) => l.msg === 'delivery target check failed')).toBe(true);
  });

  it('gives every lease it holds back at a stop, and no other process’s', async () => {
    const { ctx, webhook, rows } = await claimedJobs(2, 'me');
    await newTx(ctx, webhook.orgId);
    const now = ctx.clock.now();
    const [theirs] = await claimDue(ctx.db, webhook.id, 'other', now, now + 60_000, 1);
    await leasesOf(ctx).releaseAll();
    expect((await leasedDeliveries(ctx.db)).map((d) => [d.id, d.claimedBy])).toEqual([[theirs!.id, 'other']]);
    const claimedBy: (string | null)[] = [];
    for (const r of rows) claimedBy.push((await deliveryLease(ctx.db, r.id))!.claimedBy);
    expect(claimedBy).toEqual([null, null]);
  });
});

describe('before a send, from what the claim read', () => {
  it('the steady drain reads nothing per delivery before its send: a pass’s statements carry all its rows', async () => {
    const n = 40;
    const { ctx, receiver, dispatcher, statements } = await countedBacklog(n);
    let sent = 0;
    let passes = 0;
    // Each pass claims CLAIM_ROUNDS rounds of the webhook's two slots; all but the first round wait for a slot.
    while (sent < n) {
      const passed = await dispatcher.runOnce();
      expect(passed).toBeGreaterThan(0);
      sent += passed;
      passes++;
    }
    expect(passes).toBe(Math.ceil(n / (CLAIM_ROUNDS * 2)));
    expect(distinctEvents(receiver.received)).toBe(n);
    expect(await listDeliveries(ctx.db, { state: 'delivered', limit: n + 1 })).toHaveLength(n);
    // Every statement ran at most once per pass: none per delivery, such as a read of the row, its webhook and key before each send.
    const runs = new Map<string, number>();
    for (const sql of statements) runs.set(sql, (runs.get(sql) ?? 0) + 1);
    expect([...runs].filter(([, count]) => count > passes)).toEqual([]);
    expect(statements.length).toBeLessThan(2 * n);
    await dispatcher.stop();
  });

  it('goes as claimed while the claim is fresh; is read again after CLAIM_FRESH_MS, a change, a clock gone back or a short lease', async () => {
    const { ctx, webhook, jobs } = await claimedJobs(2, 'me');
    const leases = leasesOf(ctx);
    const job = jobs[0]!;
    const now = ctx.clock.now();
    const target = { url: webhook.url, keyRetired: false, nextAttemptAt: job.nextAttemptAt };
    job.claim = leases.claimRead(now, now + 60_000);
    expect(await leases.beforeSend(job, false)).toBe('fresh');
    // A result of this webhook that disables it is not recorded yet: not sent, fresh or not.
    jobs[1]!.claim = job.claim;
    expect(await leases.beforeSend(jobs[1]!, true)).toBe('gone');
    // Older than the window: read.
    ctx.clock.advance(CLAIM_FRESH_MS);
    expect(await leases.beforeSend(job, false)).toBe('fresh');
    ctx.clock.advance(1);
    expect(await leases.beforeSend(job, false)).toEqual(target);
    // A clock that went back: read.
    ctx.clock.set(now - 1);
    expect(await leases.beforeSend(job, false)).toEqual(target);
    // A lease the send would outlast: read (and renewed).
    ctx.clock.set(now);
    job.claim = leases.claimRead(now, now + ctx.config.delivery.timeoutMs);
    expect(await leases.beforeSend(job, false)).toEqual(target);
    // A change signalled in this process after the claim's pass began: read, and a disabled webhook is not sent.
    job.claim = leases.claimRead(now, now + 60_000);
    await disableWebhook(ctx, webhook.id, 'borderd webhooks disable');
    expect(await leases.beforeSend(job, false)).toBe('gone');
    leases.changes.close();
  });

  it('another process’s disable reaches rows claimed before it once they are CLAIM_FRESH_MS old', async () => {
    const { ctx, webhook, jobs } = await claimedJobs(2, 'me');
    const leases = leasesOf(ctx);
    const now = ctx.clock.now();
    for (const job of jobs) job.claim = leases.claimRead(now, now + 60_000);
    // Another process (its own context on the same database) disables the webhook: no signal reaches this one.
    const other = await makeContext({ ...sameDatabase(ctx), dataDir: ctx.dataDir });
    other.clock.set(ctx.clock.now());
    await disableWebhook(other, webhook.id, 'borderd webhooks disable');
    expect(await leases.beforeSend(jobs[0]!, false)).toBe('fresh');
    ctx.clock.advance(CLAIM_FRESH_MS + 1);
    expect(await leases.beforeSend(jobs[1]!, false)).toBe('gone');
    leases.changes.close();
  });

  it.runIf(onPostgres)(
    'on PostgreSQL, another node’s disable reaches rows claimed before it as soon as its notification does',
    async () => {
      const { ctx, webhook, jobs } = await claimedJobs(1, 'me');
      const wakeups = crossNodeWakeups(ctx);
      await wakeups.start();
      const leases = leasesOf(ctx);
      try {
        const now = ctx.clock.now();
        jobs[0]!.claim = leases.claimRead(now, now + 60_000);
        const other = await makeContext({ ...sameDatabase(ctx), dataDir: ctx.dataDir });
        other.clock.set(now);
        const heard = ctx.signals.webhookChanged.next();
        await disableWebhook(other, webhook.id, 'borderd webhooks disable');
        await heard;
        // This node's clock has not moved: the notification alone has the row read again.
        expect(await leases.beforeSend(jobs[0]!, false)).toBe('gone');
      } finally {
        leases.changes.close();
        await wakeups.stop();
      }
    },
  );
});
