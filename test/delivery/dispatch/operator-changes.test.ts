/**
 * An operator disables, deletes, replays or moves a webhook, or rotates its key, while its rows are
 * in flight or queued: no row is sent twice at once, a queued one is not sent where it no longer
 * should go, and what did happen is recorded.
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { disableWebhook, enableWebhook } from '../../../src/services/webhooks.js';
import { changeTransactionStatus } from '../../../src/services/transactions.js';
import { deleteDelivery, getDelivery } from '../../../src/store/deliveries.js';
import { claimDue, deliveryLease, leasedDeliveries } from '../../../src/store/delivery-claims.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { listAttempts } from '../../../src/store/delivery-attempts.js';
import { makeContext, sameDatabase } from '../../support/context.js';
import { onPostgres } from '../../support/postgres.js';
import { startReceiver } from '../receiver.js';
import { newTx, setup, verifiesWithOpenssl } from './support.js';

describe('leases while the operator changes the webhook', () => {
  async function inFlight() {
    const s = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    let release!: (status: number) => void;
    const held = new Promise<number>((r) => (release = r));
    s.receiver.setResponder((_r, res) => void held.then((status) => ((res.statusCode = status), res.end())));
    await newTx(s.ctx, s.org.org.id);
    const [d] = await listDeliveries(s.ctx.db, { limit: 1 });
    const sending = s.dispatcher.runOnce();
    await s.receiver.waitFor(1);
    return { ...s, d: d!, release, sending };
  }

  it('disable then enable --replay-since while a send is in flight: the row is not sent twice at once, and the 2xx is recorded', async () => {
    const { ctx, webhookId, d, release, sending, receiver } = await inFlight();
    await disableWebhook(ctx, webhookId, 'borderd webhooks disable');
    expect((await getDelivery(ctx.db, d.id))!.state).toBe('skipped');
    expect((await deliveryLease(ctx.db, d.id))!.claimedBy).toEqual(expect.any(String));
    await enableWebhook(ctx, webhookId, '2000-01-01T00:00:00Z');
    expect((await getDelivery(ctx.db, d.id))!.state).toBe('pending');
    // Another process looks for work right now: the row is still leased by the sender.
    const other = await makeContext({ ...sameDatabase(ctx), dataDir: ctx.dataDir });
    other.clock.set(ctx.clock.now());
    expect(await new Dispatcher(other, { random: () => 0.5, owner: 'other' }).runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    release(200);
    expect(await sending).toBe(1);
    expect(await getDelivery(ctx.db, d.id)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200 });
  });

  it('a replay made while a first attempt is in flight keeps its fresh cycle when that attempt fails', async () => {
    const { ctx, webhookId, d, release, sending } = await inFlight();
    await disableWebhook(ctx, webhookId, 'borderd webhooks disable');
    ctx.clock.advance(1_000); // the replay's due time differs from the claimed row's
    await enableWebhook(ctx, webhookId, '2000-01-01T00:00:00Z');
    const replayed = (await getDelivery(ctx.db, d.id))!;
    expect(replayed).toMatchObject({ state: 'pending', step: 0 });
    release(500);
    expect(await sending).toBe(1);
    // The failure is recorded as an attempt, but the replay's cycle stands: step 0, due when the replay said.
    expect(await listAttempts(ctx.db, d.id)).toHaveLength(1);
    expect(await getDelivery(ctx.db, d.id)).toMatchObject({
      state: 'pending',
      step: 0,
      nextAttemptAt: replayed.nextAttemptAt,
      lastStatus: 500,
    });
  });

  it('records every other result of a batch when one cannot be recorded (its row deleted meanwhile)', async () => {
    const s = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    s.receiver.setResponder((_r, res) => void held.then(() => res.end()));
    const tx = await newTx(s.ctx, s.org.org.id);
    await changeTransactionStatus(s.ctx, tx.id, 'Processing');
    const [gone, kept] = await listDeliveries(s.ctx.db, { limit: 2 });
    const sending = s.dispatcher.runOnce();
    await s.receiver.waitFor(2);
    await deleteDelivery(s.ctx.db, gone!.id); // its attempt row can no longer be written
    release();
    await sending;
    expect(await getDelivery(s.ctx.db, kept!.id)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200 });
    expect(s.ctx.logs.lines.some((l) => l.msg === 'delivery bookkeeping failed' && l.deliveryId === gone!.id)).toBe(true);
    // The batch was first written whole, rolled back, then written result by result: recorded once.
    expect(await listAttempts(s.ctx.db, kept!.id)).toHaveLength(1);
    expect(s.ctx.logs.lines.filter((l) => l.deliveryId === kept!.id && l.msg === 'delivery attempt')).toHaveLength(1);
  });

  it('records a 2xx that arrives for a row skipped meanwhile as delivered; a failure leaves it skipped', async () => {
    for (const [status, state] of [
      [200, 'delivered'],
      [500, 'skipped'],
    ] as const) {
      const s = await inFlight();
      await disableWebhook(s.ctx, s.webhookId, 'borderd webhooks disable');
      s.release(status);
      await s.sending;
      expect(await getDelivery(s.ctx.db, s.d.id)).toMatchObject({ state, attempts: 1, lastStatus: status });
      expect(await deliveryLease(s.ctx.db, s.d.id)).toMatchObject({ claimedBy: null });
    }
  });

  it('a 2xx whose lease was lost meanwhile is logged as delivered, not as a failed attempt', async () => {
    const { ctx, webhookId, d, release, sending } = await inFlight();
    // Another process, whose clock says the lease has ended, takes the row.
    const later = ctx.clock.now() + 10 * 60_000;
    expect((await claimDue(ctx.db, webhookId, 'someone-else', later, later + 60_000, 10)).map((r) => r.id)).toEqual([d.id]);
    release(200);
    await sending;
    const lines = ctx.logs.lines.filter((l) => l.deliveryId === d.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'delivery attempt', outcome: 'delivered', leaseLost: true, statusCode: 200 });
    expect(ctx.logs.lines.some((l) => l.msg === 'delivery attempt failed')).toBe(false);
    // The attempt is recorded; the row is the new owner's.
    expect((await listAttempts(ctx.db, d.id)).map((a) => a.statusCode)).toEqual([200]);
    expect((await deliveryLease(ctx.db, d.id))!.claimedBy).toBe('someone-else');
    expect((await getDelivery(ctx.db, d.id))!.state).toBe('pending');
  });
});

describe('claimed rows still waiting for a send slot when the operator changes the webhook', () => {
  /**
   * One send slot: the first of three deliveries is on the wire (held by the receiver), the other
   * two are claimed and queued behind it in the dispatcher, not sent yet.
   */
  async function queuedBehindOne() {
    const s = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.pollIntervalMs': 3_600_000 });
    let release!: (status: number) => void;
    const held = new Promise<number>((r) => (release = r));
    s.receiver.setResponder((_r, res) => void held.then((status) => ((res.statusCode = status), res.end())));
    for (let i = 0; i < 3; i++) await newTx(s.ctx, s.org.org.id);
    const sending = s.dispatcher.runOnce();
    await s.receiver.waitFor(1);
    expect(await leasedDeliveries(s.ctx.db)).toHaveLength(3); // all three claimed, one sent
    /** Answers the held send with `status`, waits for the pass, and returns the webhook's row states, sorted. */
    const finish = async (status: number): Promise<string[]> => {
      release(status);
      await sending;
      return (await listDeliveries(s.ctx.db, { webhookId: s.webhookId, limit: 5 })).map((d) => d.state).sort();
    };
    return { ...s, finish };
  }

  it('disable: the queued ones are not sent, stay skipped, and give their lease back for a later replay', async () => {
    const s = await queuedBehindOne();
    await disableWebhook(s.ctx, s.webhookId, 'borderd webhooks disable');
    expect(await s.finish(200)).toEqual(['delivered', 'skipped', 'skipped']);
    expect(s.receiver.received).toHaveLength(1);
    const rows = await listDeliveries(s.ctx.db, { webhookId: s.webhookId, limit: 5 });
    expect(rows.filter((d) => d.state === 'skipped').every((d) => d.attempts === 0)).toBe(true);
    expect(await leasedDeliveries(s.ctx.db)).toEqual([]);
    // Re-enabled and replayed: the two it missed go out at once (no lease left to wait for), once each.
    s.receiver.setResponder((_r, res) => res.end('ok'));
    await enableWebhook(s.ctx, s.webhookId, '2000-01-01T00:00:00Z');
    let sent = 0;
    for (let i = 0; i < 3; i++) sent += await s.dispatcher.runOnce();
    expect(sent).toBe(3);
    expect(new Set(s.receiver.received.slice(1).map((r) => r.headers['x-event-id'])).size).toBe(3);
  });

  it('disable, and the lease cannot be given back: the queued ones are still not sent, no attempt is counted, and the failure is logged', async () => {
    const s = await queuedBehindOne();
    // The release of a skipped row's lease fails (as a locked or full disk would); nothing else does.
    // SQLite: a trigger of this connection alone; PostgreSQL: of the test's own database.
    await s.ctx.db.exec(
      onPostgres
        ? `CREATE FUNCTION refuse_release() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN RAISE EXCEPTION 'simulated write failure'; END $$;
           CREATE TRIGGER refuse_release BEFORE UPDATE OF claimed_by ON deliveries FOR EACH ROW
             WHEN (NEW.claimed_by IS NULL AND OLD.state = 'skipped' AND NEW.state = OLD.state AND NEW.attempts = OLD.attempts)
             EXECUTE FUNCTION refuse_release()`
        : `CREATE TEMP TRIGGER refuse_release BEFORE UPDATE OF claimed_by ON deliveries
             WHEN NEW.claimed_by IS NULL AND OLD.state = 'skipped' AND NEW.state = OLD.state AND NEW.attempts = OLD.attempts
             BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END`,
    );
    await disableWebhook(s.ctx, s.webhookId, 'borderd webhooks disable');
    expect(await s.finish(200)).toEqual(['delivered', 'skipped', 'skipped']);
    expect(s.receiver.received).toHaveLength(1);
    const skipped = (await listDeliveries(s.ctx.db, { webhookId: s.webhookId, limit: 5 })).filter((d) => d.state === 'skipped');
    const counted: [number, number][] = [];
    for (const d of skipped) counted.push([d.attempts, (await listAttempts(s.ctx.db, d.id)).length]);
    expect(counted).toEqual([
      [0, 0],
      [0, 0],
    ]);
    // Still leased: the lease ends on its own.
    expect((await leasedDeliveries(s.ctx.db)).filter((d) => d.state === 'skipped')).toHaveLength(2);
    const warned = s.ctx.logs.lines.filter((l) => l.msg === 'lease of a row not sent was not given back; it ends on its own');
    expect(warned.map((l) => [l.level, l.deliveryId]).sort()).toEqual(skipped.map((d) => [40, d.id]).sort());
    expect(s.ctx.logs.text()).toContain('simulated write failure');
  });

  it('delete: the queued ones are never sent and stay cancelled', async () => {
    const s = await queuedBehindOne();
    const del = await s.http.delete(`/v1/notifications/webhooks/settings/${s.webhookId}`).set('authorization', s.org.auth);
    expect(del.status).toBe(204);
    expect(await s.finish(200)).toEqual(['cancelled', 'cancelled', 'delivered']);
    expect(s.receiver.received).toHaveLength(1);
  });

  it('410 Gone: the webhook is disabled at once and the queued ones are not sent to it', async () => {
    const s = await queuedBehindOne();
    expect(await s.finish(410)).toEqual(['failed', 'skipped', 'skipped']);
    expect(s.receiver.received).toHaveLength(1);
  });

  it('key rotated: the queued ones are signed again with the new key, which openssl verifies', async () => {
    const s = await queuedBehindOne();
    const oldPem = await s.publicPem();
    const rotated = await s.http.post('/v1/notifications/webhooks/settings/public-key').set('authorization', s.org.auth);
    expect(rotated.status).toBe(201);
    expect(await s.finish(200)).toEqual(['delivered', 'delivered', 'delivered']);
    const [first, ...queued] = s.receiver.received;
    // The one in flight at the rotation was signed and sent before it.
    expect(verifiesWithOpenssl(first!, oldPem)).toBe(true);
    expect(queued).toHaveLength(2);
    for (const r of queued) {
      expect(r.headers['x-signature-key-id']).toBe(rotated.body.keyId);
      expect(verifiesWithOpenssl(r, rotated.body.publicKey as string)).toBe(true);
    }
  });

  it('url changed (PATCH): the queued ones go to the new url', async () => {
    const s = await queuedBehindOne();
    const moved = await startReceiver();
    const patched = await s.http
      .patch(`/v1/notifications/webhooks/settings/${s.webhookId}`)
      .set('authorization', s.org.auth)
      .send({ url: moved.url });
    expect(patched.status).toBe(200);
    expect(await s.finish(200)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(s.receiver.received).toHaveLength(1);
    expect(moved.received).toHaveLength(2);
    expect(await listDeliveries(s.ctx.db, { state: 'delivered', limit: 5 })).toHaveLength(3);
  });
});
