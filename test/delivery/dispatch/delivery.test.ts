/**
 * What goes out: every event signed with the organization's current key, verifiable over the exact
 * bytes; nothing for a deleted webhook; nothing to an address the policy refuses at send time.
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { replayEvent } from '../../../src/services/outbox.js';
import { changeTransactionStatus } from '../../../src/services/transactions.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { makeContext, sameDatabase } from '../../support/context.js';
import { newTx, setup, verifiesWithNode, verifiesWithOpenssl } from './support.js';

describe('delivery', () => {
  it('posts every event signed; openssl and node:crypto both verify the exact bytes', async () => {
    const { ctx, org, receiver, dispatcher, publicPem } = await setup();
    const tx = await newTx(ctx, org.org.id);
    await changeTransactionStatus(ctx, tx.id, 'Processing');
    expect(await dispatcher.runOnce()).toBe(2);
    expect(receiver.received).toHaveLength(2);
    const pem = await publicPem();
    for (const r of receiver.received) {
      expect(verifiesWithOpenssl(r, pem)).toBe(true);
      expect(verifiesWithNode(r, pem)).toBe(true);
      const event = JSON.parse(r.body.toString());
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-event-id']).toBe(event.id);
      expect(r.headers['x-event-type']).toBe(event.type);
      expect(r.headers['x-delivery-attempt']).toBe('1');
      expect(r.headers['user-agent']).toMatch(/^borderd\/\d+\.\d+\.\d+/);
      expect(r.headers['x-signature-key-id']).toMatch(/^wsk_/);
      expect(event.organizationId).toBe(org.org.id);
      expect(event.data.id).toBe(tx.id);
    }
    // Both go out at once (several sends per webhook), so arrival order is not asserted: ordering is best effort.
    const events = receiver.received.map((r) => JSON.parse(r.body.toString()) as { type: string; data: unknown });
    const created = events.find((e) => e.type === 'Transaction_Created')!;
    const updated = events.find((e) => e.type === 'Transaction_Updated')!;
    expect(created.type).toBe('Transaction_Created');
    expect(created.data).toMatchObject({ status: 'Submitted', previousStatus: null, amount: '125.50', currency: 'USD' });
    expect(updated.type).toBe('Transaction_Updated');
    expect(updated.data).toMatchObject({ status: 'Processing', previousStatus: 'Submitted' });
    // A tampered body fails both checks.
    const tampered = { ...receiver.received[0]!, body: Buffer.from(receiver.received[0]!.body.toString().replace('125.50', '925.50')) };
    expect(verifiesWithOpenssl(tampered, pem)).toBe(false);
    expect(verifiesWithNode(tampered, pem)).toBe(false);
    const dlv = await listDeliveries(ctx.db, { state: 'delivered', limit: 10 });
    expect(dlv).toHaveLength(2);
    // One log line per attempt, with ids; never the url, the signature or the body.
    const lines = ctx.logs.lines.filter((l) => l.msg === 'delivery attempt');
    expect(lines.map((l) => l.deliveryId).sort()).toEqual(dlv.map((d) => d.id).sort());
    expect(lines[0]).toMatchObject({ attempt: 1, statusCode: 200, outcome: 'delivered', orgId: org.org.id });
    expect(ctx.logs.text()).not.toContain(receiver.url);
    expect(ctx.logs.text()).not.toContain(String(receiver.received[0]!.headers['x-signature']));
    expect(ctx.logs.text()).not.toContain('125.50');
  });

  it('signs with the current key: after rotation the old key fails and the new one verifies', async () => {
    const { ctx, http, org, receiver, dispatcher, publicPem } = await setup();
    const oldPem = await publicPem();
    await newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    const rotated = await http.post('/v1/notifications/webhooks/settings/public-key').set('authorization', org.auth);
    expect(rotated.status).toBe(201);
    expect(rotated.body.algorithm).toBe('RSA-SHA256');
    const newPem = await publicPem();
    expect(newPem).toBe(rotated.body.publicKey);
    expect(newPem).not.toBe(oldPem);
    await replayEvent(ctx, String(receiver.received[0]!.headers['x-event-id']));
    await dispatcher.runOnce();
    const [before, after] = receiver.received;
    expect(before!.body.equals(after!.body)).toBe(true);
    expect(after!.headers['x-signature-key-id']).toBe(rotated.body.keyId);
    expect(verifiesWithOpenssl(after!, newPem)).toBe(true);
    expect(verifiesWithOpenssl(after!, oldPem)).toBe(false);
    expect(verifiesWithNode(after!, oldPem)).toBe(false);
    expect(verifiesWithNode(before!, oldPem)).toBe(true);
  });

  it('sends nothing for a deleted webhook: its pending deliveries are cancelled', async () => {
    const { ctx, http, org, receiver, dispatcher, webhookId } = await setup();
    await newTx(ctx, org.org.id);
    const del = await http.delete(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth);
    expect(del.status).toBe(204);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    expect((await listDeliveries(ctx.db, { limit: 5 })).map((d) => d.state)).toEqual(['cancelled']);
    expect((await http.get(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth)).status).toBe(404);
  });
});

describe('address checks at send time', () => {
  it('refuses, at send time, a target the policy no longer allows', async () => {
    const ctx0 = await setup();
    await newTx(ctx0.ctx, ctx0.org.org.id);
    // The same database, read by a daemon configured for production rules.
    const strict = await makeContext({ ...sameDatabase(ctx0.ctx), dataDir: ctx0.ctx.dataDir, 'webhooks.allowPrivateNetworks': false });
    const d = new Dispatcher(strict, { random: () => 0.5 });
    await d.runOnce();
    expect(ctx0.receiver.received).toHaveLength(0);
    expect((await listDeliveries(strict.db, { limit: 1 }))[0]!.lastError).toMatch(/refused/);
  });

  it('resolves names and connects only to an address the policy allows (no DNS rebinding to loopback)', async () => {
    const dev = await setup();
    // Registered while private targets were allowed, by name.
    const url = dev.receiver.url.replace('127.0.0.1', 'localhost');
    await dev.http.patch(`/v1/notifications/webhooks/settings/${dev.webhookId}`).set('authorization', dev.org.auth).send({ url });
    await newTx(dev.ctx, dev.org.org.id);
    const strict = await makeContext({ ...sameDatabase(dev.ctx), dataDir: dev.ctx.dataDir, 'webhooks.allowPrivateNetworks': false });
    await new Dispatcher(strict, { random: () => 0.5 }).runOnce();
    expect(dev.receiver.received).toHaveLength(0);
    expect((await listDeliveries(strict.db, { limit: 1 }))[0]!.lastError).toMatch(/ERR_WEBHOOK_ADDRESS_REFUSED/);
    // The development policy lets the same name through.
    strict.clock.advance(10_000);
    dev.ctx.clock.set(strict.clock.now());
    expect(await dev.dispatcher.runOnce()).toBe(1);
    expect(dev.receiver.received).toHaveLength(1);
  });
});
