/**
 * What a pass reads to decide: a refill (a finished send of a webhook down to its last round of
 * claims) claims for the webhooks the node knows due without the due query; the listing runs at the
 * start, on the poll tick and on wake-ups, and finds what the node does not know: another webhook's
 * rows written without a signal, a retry come due with time.
 */
import { describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { CLAIM_ROUNDS } from '../../../src/delivery/dispatch/claim-shares.js';
import { createSignals } from '../../../src/signals.js';
import { claimDue, dueWebhooks } from '../../../src/store/delivery-claims.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import type { Db } from '../../../src/db/database.js';
import { answeringWebhook, countedBacklog, distinctEvents, holdAnswers, newTx, setup } from './support.js';

/** The due query's statement, as the counting db records it. */
const isDueQuery = (sql: string) => sql.includes('SELECT w.id, w.org_id');
/** A claim's statement. */
const isClaim = (sql: string) => sql.includes('WITH picked AS');

describe('a refill', () => {
  it('claims for the webhook it knows due with no due query: a drain lists once, at its start', async () => {
    const n = 40;
    const { ctx, receiver, dispatcher, statements } = await countedBacklog(n);
    dispatcher.start();
    try {
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(n), { timeout: 20_000, interval: 20 });
      await dispatcher.drain();
    } finally {
      await dispatcher.stop();
    }
    expect(distinctEvents(receiver.received)).toBe(n);
    expect(await listDeliveries(ctx.db, { state: 'delivered', limit: n + 1 })).toHaveLength(n);
    // Each claim takes at most CLAIM_ROUNDS rounds of the webhook's two slots, so the drain took
    // several, each asked for by a finished send; only the start's pass listed the due webhooks.
    const claims = statements.filter(isClaim).length;
    expect(claims).toBeGreaterThanOrEqual(Math.ceil(n / (CLAIM_ROUNDS * 2)));
    expect(statements.filter(isDueQuery)).toHaveLength(1);
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
    dispatcher.start();
    try {
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
    } finally {
      release();
      await dispatcher.stop();
    }
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
    const claimsPerTransaction: number[] = [];
    let dispatcher!: Dispatcher;
    let released = false;
    // Each claim statement counted per transaction; before the refill's, the held sends end.
    const probed = (db: Db, inTx: number[] | undefined): Db =>
      new Proxy(db, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          const fn = value as (...a: unknown[]) => Promise<unknown>;
          if (prop === 'all' && inTx)
            return async (sql: unknown, params: unknown[]) => {
              if (isClaim(JSON.stringify(sql))) {
                inTx[0]!++;
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
              const count = [0];
              try {
                return await fn.call(target, (tx: Db) => body(probed(tx, count)), ...rest);
              } finally {
                if (count[0]) claimsPerTransaction.push(count[0]);
              }
            };
          return fn.bind(target);
        },
      });
    dispatcher = new Dispatcher({ ...ctx, db: probed(ctx.db, undefined) }, { random: () => 0.5 });
    dispatcher.start();
    try {
      await vi.waitFor(() => expect(distinctEvents(receiver.received)).toBe(20), {
        timeout: 20_000,
        interval: 10,
      });
    } finally {
      release();
      await dispatcher.stop();
    }
    // One webhook: one claim statement in each pass's transaction, the refill's too.
    expect(released).toBe(true);
    expect(claimsPerTransaction.length).toBeGreaterThan(1);
    expect(claimsPerTransaction.every((n) => n === 1)).toBe(true);
  });
});
