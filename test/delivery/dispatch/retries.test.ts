/**
 * Failed attempts: the persisted retry schedule with its jitter and Retry-After, the webhook
 * disabled after the last attempt or a 410, and a signing failure that is never the endpoint's.
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { replayWebhookSince } from '../../../src/services/outbox.js';
import { changeTransactionStatus } from '../../../src/services/transactions.js';
import { getDelivery } from '../../../src/store/deliveries.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { listAttempts } from '../../../src/store/delivery-attempts.js';
import { currentKeyRow, replaceSealedPrivateKey } from '../../../src/store/webhook-keys.js';
import { getWebhookById } from '../../../src/store/webhooks.js';
import { makeContext, sameDatabase } from '../../support/context.js';
import { expectAllSigned, newTx, setup, SHORT } from './support.js';

describe('retries', () => {
  it('retries on the persisted schedule, records every attempt, and disables the webhook after the last', async () => {
    const { ctx, http, org, receiver, dispatcher, webhookId } = await setup(SHORT);
    receiver.setResponder((_r, res) => {
      res.statusCode = 500;
      res.end('x'.repeat(5000));
    });
    const tx = await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const [d] = await listDeliveries(ctx.db, { limit: 10 });
    expect(d).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500 });
    expect(Date.parse(d!.nextAttemptAt) - ctx.clock.now()).toBe(5000);
    ctx.clock.advance(4999);
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received[1]!.headers['x-delivery-attempt']).toBe('2');
    // A second event waits behind while the first is retried; when the last attempt fails it is kept as skipped.
    await changeTransactionStatus(ctx, tx.id, 'Cancelled');
    receiver.setResponder((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    expect(await dispatcher.runOnce()).toBe(1); // the second event's first attempt
    ctx.clock.advance(60_000);
    // Both rows are due: the first makes its last attempt; the second its second one.
    await dispatcher.runOnce();
    const first = (await getDelivery(ctx.db, d!.id))!;
    expect(first).toMatchObject({ state: 'failed', attempts: 3 });
    const attempts = await listAttempts(ctx.db, d!.id);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts[0]!.responseBody).toHaveLength(1024);
    expect(attempts.every((a) => a.statusCode === 500 && a.durationMs >= 0)).toBe(true);
    const hook = await http.get(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth);
    expect(hook.body.enabled).toBe(false);
    const others = (await listDeliveries(ctx.db, { webhookId, limit: 10 })).filter((x) => x.id !== d!.id);
    expect(others.map((x) => x.state)).toEqual(['skipped']);
    // Nothing is sent while disabled.
    ctx.clock.advance(600_000);
    await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(await listDeliveries(ctx.db, { state: 'skipped', limit: 10 })).toHaveLength(2);

    // PATCH with the same url re-enables; new events flow, skipped ones wait for a replay.
    receiver.setResponder((_r, res) => res.end('ok'));
    const patched = await http
      .patch(`/v1/notifications/webhooks/settings/${webhookId}`)
      .set('authorization', org.auth)
      .send({ url: receiver.url });
    expect(patched.body.enabled).toBe(true);
    await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const replay = await replayWebhookSince(ctx, webhookId, '2000-01-01T00:00:00Z');
    // Every event since then is sent again, the already delivered one included (at-least-once).
    expect(replay).toEqual({ events: 4, requeued: 4 });
    expect(await dispatcher.runOnce()).toBe(4);
    const ids = new Set(receiver.received.filter((r) => r.headers['x-event-id']).map((r) => r.headers['x-event-id']));
    expect(ids.size).toBe(4);
    expect(await listDeliveries(ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(4);
  });

  it('honours Retry-After on 503 within 1x to 2x of the scheduled delay', async () => {
    const { ctx, org, receiver, dispatcher } = await setup(SHORT);
    receiver.setResponder((_r, res) => {
      res.writeHead(503, { 'retry-after': '3600' });
      res.end();
    });
    await newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    const [d] = await listDeliveries(ctx.db, { limit: 1 });
    expect(Date.parse(d!.nextAttemptAt) - ctx.clock.now()).toBe(10_000);
    receiver.setResponder((_r, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end();
    });
    ctx.clock.advance(10_000);
    await dispatcher.runOnce();
    const [d2] = await listDeliveries(ctx.db, { limit: 1 });
    expect(Date.parse(d2!.nextAttemptAt) - ctx.clock.now()).toBe(60_000); // below 1x: the schedule wins
  });

  it('disables at once on 410 Gone', async () => {
    const { ctx, org, receiver, dispatcher, webhookId } = await setup();
    receiver.setResponder((_r, res) => {
      res.statusCode = 410;
      res.end();
    });
    await newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    expect((await listDeliveries(ctx.db, { webhookId, limit: 5 }))[0]!.state).toBe('failed');
    expect(await getWebhookById(ctx.db, webhookId)).toMatchObject({ enabled: false, disabledReason: 'endpoint answered 410 Gone' });
  });
});

describe('retry schedule', () => {
  it('spreads retries by the jitter: the next attempt falls inside ±20% of the scheduled delay', async () => {
    for (const [random, expected] of [
      [0.9, 5800],
      [0.1, 4200],
    ] as const) {
      const { ctx, org, receiver } = await setup(SHORT);
      receiver.setResponder((_r, res) => {
        res.statusCode = 500;
        res.end();
      });
      await newTx(ctx, org.org.id);
      const dispatcher = new Dispatcher(ctx, { random: () => random });
      await dispatcher.runOnce();
      const delay = Date.parse((await listDeliveries(ctx.db, { limit: 1 }))[0]!.nextAttemptAt) - ctx.clock.now();
      expect(delay).not.toBe(5000);
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(6000);
      expect(delay).toBe(expected);
    }
  });

  it('honours a non-zero first entry: enqueue and replay wait that long before the first attempt', async () => {
    const { ctx, org, receiver, dispatcher, webhookId } = await setup({ 'delivery.retryScheduleSeconds': [30, 5] });
    await newTx(ctx, org.org.id);
    const [d] = await listDeliveries(ctx.db, { limit: 1 });
    expect(Date.parse(d!.nextAttemptAt) - ctx.clock.now()).toBe(30_000);
    ctx.clock.advance(29_999);
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    await replayWebhookSince(ctx, webhookId, '2000-01-01T00:00:00Z');
    expect(Date.parse((await getDelivery(ctx.db, d!.id))!.nextAttemptAt) - ctx.clock.now()).toBe(30_000);
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(30_000);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(2);
  });

  it('records a signing failure as an attempt and backs off, but never disables the webhook for it, nor spends its attempts', async () => {
    const { ctx, org, receiver, dispatcher, webhookId } = await setup(SHORT);
    await newTx(ctx, org.org.id);
    // The private key can no longer be opened (e.g. the wrong master key).
    const key = (await currentKeyRow(ctx.db, org.org.id))!;
    await replaceSealedPrivateKey(ctx.db, key.id, 'not-a-sealed-value');
    expect(await dispatcher.runOnce()).toBe(1);
    const [d] = await listDeliveries(ctx.db, { limit: 1 });
    expect(d).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
    expect(d!.lastError).toMatch(/^signing failed: /);
    expect(Date.parse(d!.nextAttemptAt) - ctx.clock.now()).toBe(5000);
    ctx.clock.advance(5000);
    await dispatcher.runOnce();
    ctx.clock.advance(60_000);
    await dispatcher.runOnce();
    ctx.clock.advance(60_000);
    await dispatcher.runOnce();
    // Past the end of the schedule: still pending, retried at the last delay, the webhook untouched.
    const after = (await getDelivery(ctx.db, d!.id))!;
    expect(after).toMatchObject({ state: 'pending', attempts: 4 });
    expect(Date.parse(after.nextAttemptAt) - ctx.clock.now()).toBe(60_000);
    const attempts = await listAttempts(ctx.db, d!.id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.keyId])).toEqual([
      [1, null, null],
      [2, null, null],
      [3, null, null],
      [4, null, null],
    ]);
    expect(attempts.every((a) => a.error?.startsWith('signing failed: '))).toBe(true);
    expect(receiver.received).toHaveLength(0);
    expect((await getWebhookById(ctx.db, webhookId))!.enabled).toBe(true);

    // The key works again and the endpoint fails: it gets every attempt of its schedule (three),
    // as if the outage had not been, before the webhook is disabled.
    await replaceSealedPrivateKey(ctx.db, key.id, key.private_enc);
    receiver.setResponder((_r, res) => ((res.statusCode = 500), res.end()));
    for (const wait of [60_000, 5_000, 60_000]) {
      expect((await getWebhookById(ctx.db, webhookId))!.enabled).toBe(true);
      ctx.clock.advance(wait);
      expect(await dispatcher.runOnce()).toBe(1);
    }
    expect(receiver.received).toHaveLength(3);
    expect(await getDelivery(ctx.db, d!.id)).toMatchObject({ state: 'failed', attempts: 7 });
    expect((await getWebhookById(ctx.db, webhookId))!.enabled).toBe(false);
  });

  it('keeps a future retry across a restart: next_attempt_at unchanged, sent only when due', async () => {
    const { ctx, org, receiver, dispatcher } = await setup(SHORT);
    receiver.setResponder((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    await newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    await dispatcher.stop();
    const [before] = await listDeliveries(ctx.db, { limit: 10 });
    expect(Date.parse(before!.nextAttemptAt) - ctx.clock.now()).toBe(5000);
    await ctx.db.close();
    // The restarted process: a new connection and a new dispatcher, its clock where the first one stopped.
    receiver.setResponder((_r, res) => res.end('ok'));
    const restarted = await makeContext({ ...SHORT, ...sameDatabase(ctx), dataDir: ctx.dataDir });
    restarted.clock.set(ctx.clock.now());
    expect(await listDeliveries(restarted.db, { limit: 10 })).toEqual([before]);
    const again = new Dispatcher(restarted, { random: () => 0.5 });
    expect(await again.runOnce()).toBe(0);
    restarted.clock.advance(4999);
    expect(await again.runOnce()).toBe(0);
    restarted.clock.advance(1);
    expect(await again.runOnce()).toBe(1);
    expect(await getDelivery(restarted.db, before!.id)).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2']);
    await expectAllSigned(restarted, receiver.received);
  });
});
