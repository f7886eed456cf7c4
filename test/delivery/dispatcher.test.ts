import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import { claimDelivery, getDelivery, listAttempts, listDeliveries } from '../../src/store/deliveries.js';
import { replayEvent, replayWebhookSince } from '../../src/services/outbox.js';
import { changeTransactionStatus, createTransaction } from '../../src/services/transactions.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg, tempDir, type TestContext } from '../support/context.js';
import { startReceiver, type Received } from './receiver.js';

const SHORT = { 'delivery.retryScheduleSeconds': [0, 5, 60], 'delivery.jitter': 0.2 };

async function setup(overrides: Record<string, unknown> = {}) {
  const ctx = makeContext(overrides);
  const api = makeApi(ctx);
  const org = await makeOrg(ctx, api.tokens);
  const receiver = await startReceiver();
  const created = await api.http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: receiver.url });
  expect(created.status).toBe(201);
  // random 0.5 = no jitter, so delays are exact.
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  const publicPem = async () => (await api.http.get('/v1/notifications/webhooks/settings/public-key').set('authorization', org.auth)).body.publicKey as string;
  return { ctx, ...api, org, receiver, webhookId: created.body.id as string, dispatcher, publicPem };
}

function verifiesWithOpenssl(r: Received, publicPem: string): boolean {
  const dir = tempDir('borderd-openssl-');
  writeFileSync(join(dir, 'pub.pem'), publicPem);
  writeFileSync(join(dir, 'body.bin'), r.body);
  writeFileSync(join(dir, 'sig.bin'), Buffer.from(String(r.headers['x-signature']), 'base64'));
  try {
    const out = execFileSync('openssl', ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sig.bin'), join(dir, 'body.bin')], { stdio: 'pipe' });
    return out.toString().includes('Verified OK');
  } catch {
    return false;
  }
}

const verifiesWithNode = (r: Received, publicPem: string): boolean =>
  verify('sha256', r.body, createPublicKey(publicPem), Buffer.from(String(r.headers['x-signature']), 'base64'));

const newTx = (ctx: TestContext, orgId: string) => createTransaction(ctx, { orgId, type: 'Deposit', amount: '125.50', currency: 'USD' });

describe('delivery', () => {
  it('posts every event signed; openssl and node:crypto both verify the exact bytes', async () => {
    const { ctx, org, receiver, dispatcher, publicPem } = await setup();
    const tx = newTx(ctx, org.org.id);
    changeTransactionStatus(ctx, tx.id, 'Processing');
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
    const [created, updated] = receiver.received.map((r) => JSON.parse(r.body.toString()));
    expect(created.type).toBe('Transaction_Created');
    expect(created.data).toMatchObject({ status: 'Submitted', previousStatus: null, amount: '125.50', currency: 'USD' });
    expect(updated.type).toBe('Transaction_Updated');
    expect(updated.data).toMatchObject({ status: 'Processing', previousStatus: 'Submitted' });
    // A tampered body fails both checks.
    const tampered = { ...receiver.received[0]!, body: Buffer.from(receiver.received[0]!.body.toString().replace('125.50', '925.50')) };
    expect(verifiesWithOpenssl(tampered, pem)).toBe(false);
    expect(verifiesWithNode(tampered, pem)).toBe(false);
    const dlv = listDeliveries(ctx.db, { state: 'delivered', limit: 10 });
    expect(dlv).toHaveLength(2);
    // One log line per attempt, with ids; never the url, the signature or the body.
    const lines = ctx.logs.lines.filter((l) => l.msg === 'delivery attempt');
    expect(lines.map((l) => l.deliveryId).sort()).toEqual(dlv.map((d) => d.id).sort());
    expect(lines[0]).toMatchObject({ attempt: 1, statusCode: 200, outcome: 'delivered', orgId: org.org.id });
    expect(ctx.logs.text()).not.toContain(receiver.url);
    expect(ctx.logs.text()).not.toContain(String(receiver.received[0]!.headers['x-signature']));
    expect(ctx.logs.text()).not.toContain('125.50');
  });

  it('retries on the persisted schedule, records every attempt, and disables the webhook after the last', async () => {
    const { ctx, http, org, receiver, dispatcher, webhookId } = await setup(SHORT);
    receiver.setResponder((_r, res) => {
      res.statusCode = 500;
      res.end('x'.repeat(5000));
    });
    const tx = newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const [d] = listDeliveries(ctx.db, { limit: 10 });
    expect(d).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500 });
    expect(Date.parse(d!.nextAttemptAt) - ctx.clock.now()).toBe(5000);
    ctx.clock.advance(4999);
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received[1]!.headers['x-delivery-attempt']).toBe('2');
    // A second event waits behind while the first is retried; when the last attempt fails it is kept as skipped.
    changeTransactionStatus(ctx, tx.id, 'Cancelled');
    receiver.setResponder((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    expect(await dispatcher.runOnce()).toBe(1); // the second event's first attempt
    ctx.clock.advance(60_000);
    // Both rows are due: the first makes its last attempt; the second its second one.
    await dispatcher.runOnce();
    const first = getDelivery(ctx.db, d!.id)!;
    expect(first).toMatchObject({ state: 'failed', attempts: 3 });
    const attempts = listAttempts(ctx.db, d!.id);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts[0]!.responseBody).toHaveLength(1024);
    expect(attempts.every((a) => a.statusCode === 500 && a.durationMs >= 0)).toBe(true);
    const hook = await http.get(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth);
    expect(hook.body.enabled).toBe(false);
    const others = listDeliveries(ctx.db, { webhookId, limit: 10 }).filter((x) => x.id !== d!.id);
    expect(others.map((x) => x.state)).toEqual(['skipped']);
    // Nothing is sent while disabled.
    ctx.clock.advance(600_000);
    newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(listDeliveries(ctx.db, { state: 'skipped', limit: 10 })).toHaveLength(2);

    // PATCH with the same url re-enables; new events flow, skipped ones wait for a replay.
    receiver.setResponder((_r, res) => res.end('ok'));
    const patched = await http.patch(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth).send({ url: receiver.url });
    expect(patched.body.enabled).toBe(true);
    newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const replay = replayWebhookSince(ctx, webhookId, '2000-01-01T00:00:00Z');
    // Every event since then is sent again, the already delivered one included (at-least-once).
    expect(replay).toEqual({ events: 4, requeued: 4 });
    expect(await dispatcher.runOnce()).toBe(4);
    const ids = new Set(receiver.received.filter((r) => r.headers['x-event-id']).map((r) => r.headers['x-event-id']));
    expect(ids.size).toBe(4);
    expect(listDeliveries(ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(4);
  });

  it('honours Retry-After on 503 within 1x to 2x of the scheduled delay', async () => {
    const { ctx, org, receiver, dispatcher } = await setup(SHORT);
    receiver.setResponder((_r, res) => {
      res.writeHead(503, { 'retry-after': '3600' });
      res.end();
    });
    newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    const [d] = listDeliveries(ctx.db, { limit: 1 });
    expect(Date.parse(d!.nextAttemptAt) - ctx.clock.now()).toBe(10_000);
    receiver.setResponder((_r, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end();
    });
    ctx.clock.advance(10_000);
    await dispatcher.runOnce();
    const [d2] = listDeliveries(ctx.db, { limit: 1 });
    expect(Date.parse(d2!.nextAttemptAt) - ctx.clock.now()).toBe(60_000); // below 1x: the schedule wins
  });

  it('disables at once on 410 Gone', async () => {
    const { ctx, org, receiver, dispatcher, webhookId } = await setup();
    receiver.setResponder((_r, res) => {
      res.statusCode = 410;
      res.end();
    });
    newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    expect(listDeliveries(ctx.db, { webhookId, limit: 5 })[0]!.state).toBe('failed');
    const w = ctx.db.prepare('SELECT enabled, disabled_reason FROM webhooks WHERE id = ?').get(webhookId) as { enabled: number; disabled_reason: string };
    expect(w).toEqual({ enabled: 0, disabled_reason: 'endpoint answered 410 Gone' });
  });

  it('treats a timeout and a refused connection as failures, and does not follow redirects', async () => {
    const { ctx, http, org, receiver, dispatcher, webhookId } = await setup({ 'delivery.timeoutMs': 300 });
    receiver.setResponder(() => undefined); // never answers
    newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    const [d] = listDeliveries(ctx.db, { limit: 1 });
    expect(d!.state).toBe('pending');
    expect(d!.lastError).toMatch(/timeout|abort/i);
    receiver.setResponder((_r, res) => {
      res.writeHead(302, { location: receiver.url + '/elsewhere' });
      res.end();
    });
    ctx.clock.advance(10_000);
    await dispatcher.runOnce();
    expect(getDelivery(ctx.db, d!.id)!.lastStatus).toBe(302);
    expect(receiver.received.filter((r) => r.body.length > 0)).toHaveLength(2);
    // A port nobody listens on: refused.
    const closedUrl = receiver.url.replace(/:\d+\//, ':1/');
    await http.patch(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth).send({ url: closedUrl });
    ctx.clock.advance(400_000);
    await dispatcher.runOnce();
    expect(getDelivery(ctx.db, d!.id)!.lastError).toMatch(/ECONNREFUSED/);
  });

  it('signs with the current key: after rotation the old key fails and the new one verifies', async () => {
    const { ctx, http, org, receiver, dispatcher, publicPem } = await setup();
    const oldPem = await publicPem();
    newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    const rotated = await http.post('/v1/notifications/webhooks/settings/public-key').set('authorization', org.auth);
    expect(rotated.status).toBe(201);
    expect(rotated.body.algorithm).toBe('RSA-SHA256');
    const newPem = await publicPem();
    expect(newPem).toBe(rotated.body.publicKey);
    expect(newPem).not.toBe(oldPem);
    replayEvent(ctx, String(receiver.received[0]!.headers['x-event-id']));
    await dispatcher.runOnce();
    const [before, after] = receiver.received;
    expect(before!.body.equals(after!.body)).toBe(true);
    expect(after!.headers['x-signature-key-id']).toBe(rotated.body.keyId);
    expect(verifiesWithOpenssl(after!, newPem)).toBe(true);
    expect(verifiesWithOpenssl(after!, oldPem)).toBe(false);
    expect(verifiesWithNode(after!, oldPem)).toBe(false);
    expect(verifiesWithNode(before!, oldPem)).toBe(true);
  });

  it('never sends a leased attempt twice; an expired lease (crash mid-send) is claimable again', async () => {
    const { ctx, org, receiver, dispatcher } = await setup();
    newTx(ctx, org.org.id);
    const [d] = listDeliveries(ctx.db, { limit: 1 });
    const now = ctx.clock.now();
    expect(claimDelivery(ctx.db, d!.id, 'dead-process', now, now + ctx.config.delivery.leaseMs)).toBe(true);
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(ctx.config.delivery.leaseMs + 1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(getDelivery(ctx.db, d!.id)!.state).toBe('delivered');
  });

  it('two dispatchers on one database send each attempt once', async () => {
    const { ctx, org, receiver, dispatcher } = await setup();
    for (let i = 0; i < 20; i++) newTx(ctx, org.org.id);
    const other = new Dispatcher(ctx, { random: () => 0.5, owner: 'other' });
    const [a, b] = await Promise.all([dispatcher.runOnce(), other.runOnce()]);
    let total = a + b;
    while (total < 20) total += (await dispatcher.runOnce()) + (await other.runOnce());
    expect(total).toBe(20);
    expect(new Set(receiver.received.map((r) => r.headers['x-event-id'])).size).toBe(20);
    expect(receiver.received).toHaveLength(20);
  });

  it('sends nothing for a deleted webhook: its pending deliveries are cancelled', async () => {
    const { ctx, http, org, receiver, dispatcher, webhookId } = await setup();
    newTx(ctx, org.org.id);
    const del = await http.delete(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth);
    expect(del.status).toBe(204);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    expect(listDeliveries(ctx.db, { limit: 5 }).map((d) => d.state)).toEqual(['cancelled']);
    expect((await http.get(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth)).status).toBe(404);
  });

  it('refuses, at send time, a target the policy no longer allows', async () => {
    const ctx0 = await setup();
    newTx(ctx0.ctx, ctx0.org.org.id);
    // The same database, read by a daemon configured for production rules.
    const strict = makeContext({ 'database.path': ctx0.ctx.config.database.path, 'webhooks.allowPrivateNetworks': false });
    const d = new Dispatcher(strict, { random: () => 0.5 });
    await d.runOnce();
    expect(ctx0.receiver.received).toHaveLength(0);
    expect(listDeliveries(strict.db, { limit: 1 })[0]!.lastError).toMatch(/refused/);
    void ADMIN_TOKEN;
  });
});

describe('address checks at send time', () => {
  it('resolves names and connects only to an address the policy allows (no DNS rebinding to loopback)', async () => {
    const dev = await setup();
    // Registered while private targets were allowed, by name.
    const url = dev.receiver.url.replace('127.0.0.1', 'localhost');
    await dev.http.patch(`/v1/notifications/webhooks/settings/${dev.webhookId}`).set('authorization', dev.org.auth).send({ url });
    newTx(dev.ctx, dev.org.org.id);
    const strict = makeContext({ 'database.path': dev.ctx.config.database.path, 'webhooks.allowPrivateNetworks': false });
    await new Dispatcher(strict, { random: () => 0.5 }).runOnce();
    expect(dev.receiver.received).toHaveLength(0);
    expect(listDeliveries(strict.db, { limit: 1 })[0]!.lastError).toMatch(/ERR_WEBHOOK_ADDRESS_REFUSED/);
    // The development policy lets the same name through.
    strict.clock.advance(10_000);
    dev.ctx.clock.set(strict.clock.now());
    expect(await dev.dispatcher.runOnce()).toBe(1);
    expect(dev.receiver.received).toHaveLength(1);
  });
});

describe('worker lifecycle', () => {
  it('is woken by a commit, and stop() finishes the send in flight and leaves no lease behind', async () => {
    // A poll interval far beyond the test: only the in-process signal can start the send.
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    receiver.setResponder((_r, res) => void held.then(() => res.end('ok')));
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    newTx(ctx, org.org.id); // commit + signal: no poll needed
    await receiver.waitFor(1);
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release();
    await stopping;
    const [d] = listDeliveries(ctx.db, { limit: 1 });
    expect(d!.state).toBe('delivered');
    const leased = ctx.db.prepare('SELECT COUNT(*) AS n FROM deliveries WHERE claimed_by IS NOT NULL').get() as { n: number };
    expect(leased.n).toBe(0);
  });
});

describe('bounded concurrency', () => {
  it('caps each endpoint, so a stalled endpoint does not hold back the others', async () => {
    const { ctx, http, org, receiver: stalled } = await setup({ 'delivery.concurrency': 6, 'delivery.perEndpointConcurrency': 4 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    stalled.setResponder((_r, res) => void held.then(() => res.end('ok')));
    const fast = await startReceiver();
    await http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: fast.url });
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      for (let i = 0; i < 10; i++) newTx(ctx, org.org.id);
      await fast.waitFor(10);
      await stalled.waitFor(4);
      expect(stalled.received).toHaveLength(4); // its per-endpoint cap, while the other got all ten
      expect(new Set(fast.received.map((r) => r.headers['x-event-id'])).size).toBe(10);
    } finally {
      release();
      await worker.stop();
    }
  });
});
