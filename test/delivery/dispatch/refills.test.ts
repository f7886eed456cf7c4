/**
 * What a pass reads to decide: a refill (a finished send of a webhook down to its last round of
 * claims) claims for the webhooks the node knows due without the due query; the listing runs at the
 * start, on the poll tick and on wake-ups, and finds what the node does not know: another webhook's
 * rows written without a signal, a retry come due with time. A refill's claim starts after the last
 * row the claim before it took; when it comes back short, the rest is claimed from the oldest due
 * row, so what it passed over waits for no listing.
 */
import { describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { CLAIM_ROUNDS } from '../../../src/delivery/dispatch/claim-shares.js';
import { createSignals } from '../../../src/signals.js';
import { claimDue, dueWebhooks, releaseLease } from '../../../src/store/delivery-claims.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import type { Db } from '../../../src/db/database.js';
import { answeringWebhook, counted, countedBacklog, distinctEvents, holdAnswers, newTx, setup, whileRunning } from './support.js';

/** The due query's statement, as the counting db records it. */
const isDueQuery = (sql: string) => sql.includes('SELECT w.id, w.org_id');
/** A claim's statement. */
const isClaim = (sql: string) => sql.includes('WITH picked AS');
/** A claim that starts after a cursor. */
const startsAtCursor = (sql: string) => sql.includes('(c.next_attempt_at, c.id) >');

describe('a refill', () => {
  it('claims for the webhook it knows due with no due query: a drain lists once, at its start', async () => {
    const n = 40;
    const { ctx, receiver, dispatcher, statements } = await countedBacklog(n);
    await whileRunning(
      dispatcher,
      () => undefined,
      async () => {
        await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(n), { timeout: 20_000, interval: 20 });
        await dispatcher.drain();
      },
    );
    expect(distinctEvents(receiver.received)).toBe(n);
    expect(await listDeliveries(ctx.db, { state: 'delivered', limit: n + 1 })).toHaveLength(n);
    // Each claim takes at most CLAIM_ROUNDS rounds of the webhook's two slots, so the drain took
    // several, each asked for by a finished send; only the start's pass listed the due webhooks.
    const claims = statements.filter(isClaim).length;
    expect(claims).toBeGreaterThanOrEqual(Math.ceil(n / (CLAIM_ROUNDS * 2)));
    expect(statements.filter(isDueQuery)).toHaveLength(1);
  });

  it('starts after the last row the claim before it took, and takes what it passed over once it comes back short', async () => {
    const n = 30;
    const { ctx, receiver, webhookId, dispatcher, statements } = await countedBacklog(n);
    // The oldest row is held elsewhere when the drain begins, and given back once the walk is past it.
    const now = ctx.clock.now();
    const [oldest] = await claimDue(ctx.db, webhookId, 'other', now, now + 60_000, 1);
    const release = holdAnswers(receiver);
    await whileRunning(dispatcher, release, async () => {
      await vi.waitFor(() => expect(receiver.received.length).toBe(2), { timeout: 10_000, interval: 10 });
      await releaseLease(ctx.db, oldest!.id, 'other');
      release();
      await vi.waitFor(() => expect(distinctEvents(receiver.received)).toBe(n), { timeout: 20_000, interval: 20 });
      await dispatcher.drain();
    });
    expect(await listDeliveries(ctx.db, { state: 'delivered', limit: n + 1 })).toHaveLength(n);
    // The poll tick is an hour away: the row given back was found by a claim, not by a listing.
    expect(statements.filter(isDueQuery)).toHaveLength(1);
    // The first claim, the listing's, walks from the oldest due row; each refill's starts at its
    // cursor, and one from the start follows only a claim from a cursor that came back short.
    const claims = statements.filter(isClaim);
    expect(startsAtCursor(claims[0]!)).toBe(false);
    expect(claims.filter(startsAtCursor).length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < claims.length; i++)
      if (!startsAtCursor(claims[i]!)) expect(startsAtCursor(claims[i - 1]!), `claim ${i}`).toBe(true);
    expect(startsAtCursor(claims.at(-1)!)).toBe(false);
    expect(receiver.received.filter((r) => r.headers['x-event-id'] === oldest!.eventId)).toHaveLength(1);
  });

  it("a claim after a cursor takes the rows after it, in the claim's order (due time, then id), and when they run short those before it", async () => {
    const { ctx, org, webhookId } = await setup();
    for (let i = 0; i < 6; i++) await newTx(ctx, org.org.id);
    const ids = await ctx.db.column<string>('SELECT id FROM deliveries ORDER BY id');
    await ctx.db.run('UPDATE deliveries SET next_attempt_at = 1000');
    // The last row by id is due earlier than the cursor: before it in the claim's order.
    await ctx.db.run('UPDATE deliveries SET next_attempt_at = 999 WHERE id = ?', [ids[5]]);
    const after = { nextAttemptAt: 1000, id: ids[1]! };
    const claim = async () => (await claimDue(ctx.db, webhookId, 'me', 2000, 60_000, 3, [], 'none', undefined, after)).map((r) => r.id);
    expect(await claim()).toEqual(ids.slice(2, 5));
    // Nothing due after the cursor any more: the claim takes what is before it, from the oldest.
    expect(await claim()).toEqual([ids[5], ids[0], ids[1]]);
    expect(await claim()).toEqual([]);
  });

  it('takes no row of a webhook disabled, deleted, moved or reordered since it was listed: the claim reads it as known', async () => {
    const { ctx, org, webhookId } = await setup();
    for (let i = 0; i < 4; i++) await newTx(ctx, org.org.id);
    const now = ctx.clock.now();
    const [known] = await dueWebhooks(ctx.db, now);
    const claim = () => claimDue(ctx.db, webhookId, 'me', now, now + 60_000, 1, [], known!.ordering, known!.url);
    const changes: [string, string, string][] = [
      ['enabled', '0', '1'],
      ['url', "'http://127.0.0.1:9/moved'", `'${known!.url}'`],
      ['ordering', "'resource'", "'none'"],
      ['deleted_at', "'2026-01-01T00:00:00.000Z'", 'NULL'],
    ];
    for (const [column, changed, back] of changes) {
      await ctx.db.run(`UPDATE webhooks SET ${column} = ${changed} WHERE id = ?`, [webhookId]);
      expect(await claim(), column).toEqual([]);
      await ctx.db.run(`UPDATE webhooks SET ${column} = ${back} WHERE id = ?`, [webhookId]);
      expect(await claim(), column).toHaveLength(1);
    }
  });
});

describe('the poll tick', () => {
  it("finds another webhook's rows written without a signal, and a retry come due with time, while a webhook waits on its sends", async () => {
    const { ctx, http, org, receiver, webhookId } = await setup({
      'delivery.perEndpointConcurrency': 2,
      'delivery.pollIntervalMs': 20,
      'delivery.retryScheduleSeconds': [0, 5, 60],
    });
    // The first webhook's endpoint holds its answers: its node holds claims, known due, and refills.
    const release = holdAnswers(receiver);
    for (let i = 0; i < 12; i++) await newTx(ctx, org.org.id);
    // Signals of its own: the API's writes do not wake this dispatcher, only its tick finds them.
    const dispatcher = new Dispatcher({ ...ctx, signals: createSignals() }, { random: () => 0.5 });
    await whileRunning(dispatcher, release, async () => {
      await vi.waitFor(() => expect(receiver.received.length).toBe(2), { timeout: 10_000, interval: 10 });
      let answers = 0;
      const second = await answeringWebhook(ctx, http, org.auth);
      // Its first attempt fails; the retry, due 5 s later by the clock, succeeds.
      second.setResponder((_r, res) => {
        res.statusCode = answers++ === 0 ? 500 : 200;
        res.end('');
      });
      await newTx(ctx, org.org.id);
      // Its result recorded (the retry due 5 s from now) before the clock moves.
      const attempts = async () => Number(await ctx.db.value('SELECT attempts FROM deliveries WHERE webhook_id <> ?', [webhookId]));
      await vi.waitFor(async () => expect(await attempts()).toBe(1), { timeout: 10_000, interval: 10 });
      expect(second.received).toHaveLength(1);
      ctx.clock.advance(5_000);
      await vi.waitFor(() => expect(second.received).toHaveLength(2), { timeout: 10_000, interval: 10 });
      expect(second.received[1]!.headers['x-event-id']).toBe(second.received[0]!.headers['x-event-id']);
      expect(second.received[1]!.headers['x-delivery-attempt']).toBe('2');
      // The first webhook's sends answered: it drains the rest by refills, the new event's row too.
      release();
      await vi.waitFor(() => expect(distinctEvents(receiver.received)).toBe(13), {
        timeout: 10_000,
        interval: 10,
      });
    });
  });
});

describe('a listing', () => {
  it('leaves a webhook whose last claim came back full to its cursor: not probed, its claims go on from where they were', async () => {
    const n = 30;
    const { ctx, org, receiver, webhookId } = await setup({ 'delivery.perEndpointConcurrency': 2, 'delivery.pollIntervalMs': 20 });
    for (let i = 0; i < n; i++) await newTx(ctx, org.org.id);
    // Known due to the node or not, the webhook is due: the listing leaves out only what it is told to.
    const now = ctx.clock.now();
    expect((await dueWebhooks(ctx.db, now)).map((w) => w.id)).toEqual([webhookId]);
    expect(await dueWebhooks(ctx.db, now, [webhookId])).toEqual([]);
    const statements: string[] = [];
    const dispatcher = new Dispatcher({ ...ctx, db: counted(ctx.db, statements) as typeof ctx.db }, { random: () => 0.5 });
    // The sends held long enough for several poll ticks to list while the node holds its claims.
    const release = holdAnswers(receiver);
    await whileRunning(dispatcher, release, async () => {
      await vi.waitFor(() => expect(receiver.received.length).toBe(2), { timeout: 10_000, interval: 10 });
      const listed = statements.filter(isDueQuery).length;
      await vi.waitFor(() => expect(statements.filter(isDueQuery).length).toBeGreaterThan(listed + 3), { timeout: 10_000, interval: 10 });
      release();
      await vi.waitFor(() => expect(distinctEvents(receiver.received)).toBe(n), { timeout: 20_000, interval: 20 });
      await dispatcher.drain();
    });
    // The first claim, the first listing's, walks from the oldest due row; every later one starts at
    // the cursor, but for one from the start after a claim from the cursor that came back short.
    const claims = statements.filter(isClaim);
    expect(claims.length).toBeGreaterThan(3);
    expect(startsAtCursor(claims[0]!)).toBe(false);
    for (let i = 1; i < claims.length; i++)
      if (!startsAtCursor(claims[i]!)) expect(startsAtCursor(claims[i - 1]!), `claim ${i}`).toBe(true);
  });
});

describe("a pass's claims", () => {
  it('take each webhook’s room as the pass began: sends that end while the claim runs open no second round of claims', async () => {
    const { ctx, org, receiver, webhookId } = await setup({ 'delivery.perEndpointConcurrency': 2, 'delivery.pollIntervalMs': 3_600_000 });
    for (let i = 0; i < 20; i++) await newTx(ctx, org.org.id);
    // The first claim's last round (its 7th and 8th rows) is held until the refill's claim runs.
    let release!: () => void;
    const lastRound = new Promise<void>((r) => (release = r));
    let requests = 0;
    receiver.setResponder((_r, res) => {
      if (++requests <= CLAIM_ROUNDS * 2 - 2) res.end('ok');
      else if (requests <= CLAIM_ROUNDS * 2) void lastRound.then(() => res.end('ok'));
      else res.end('ok');
    });
    const claimsPerTransaction: string[][] = [];
    let dispatcher!: Dispatcher;
    let released = false;
    // Each claim statement counted per transaction; before the refill's, the held sends end.
    const probed = (db: Db, inTx: string[] | undefined): Db =>
      new Proxy(db, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          const fn = value as (...a: unknown[]) => Promise<unknown>;
          if (prop === 'all' && inTx)
            return async (sql: unknown, params: unknown[]) => {
              const text = JSON.stringify(sql);
              if (isClaim(text)) {
                inTx.push(text);
                if (!released && dispatcher.sendingTo(webhookId) > 0) {
                  released = true;
                  await vi.waitFor(() => expect(requests).toBe(CLAIM_ROUNDS * 2), { timeout: 10_000, interval: 5 });
                  release();
                  await vi.waitFor(() => expect(dispatcher.sendingTo(webhookId)).toBe(0), { timeout: 10_000, interval: 5 });
                }
              }
              return fn.call(target, sql, params);
            };
          if (prop === 'tryTransaction')
            return async (body: (tx: Db) => Promise<unknown>, ...rest: unknown[]) => {
              const claims: string[] = [];
              try {
                return await fn.call(target, (tx: Db) => body(probed(tx, claims)), ...rest);
              } finally {
                if (claims.length) claimsPerTransaction.push(claims);
              }
            };
          return fn.bind(target);
        },
      });
    dispatcher = new Dispatcher({ ...ctx, db: probed(ctx.db, undefined) }, { random: () => 0.5 });
    await whileRunning(dispatcher, release, async () => {
      await vi.waitFor(() => expect(distinctEvents(receiver.received)).toBe(20), {
        timeout: 20_000,
        interval: 10,
      });
    });
    // One webhook: one claim in each pass's transaction, the refill's too (a claim from a cursor that
    // comes back short, with the rest of it from the oldest due row, is one claim).
    expect(released).toBe(true);
    expect(claimsPerTransaction.length).toBeGreaterThan(1);
    for (const claims of claimsPerTransaction)
      if (claims.length > 1) expect(claims.map(startsAtCursor)).toEqual([true, false]);
      else expect(claims).toHaveLength(1);
  });
});
