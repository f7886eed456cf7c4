import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { CLAIM_ROUNDS, shareClaims } from '../../src/delivery/dispatch/claim-shares.js';
import { Signer } from '../../src/delivery/signing-keys.js';
import { claimDue, getDelivery, listDeliveries } from '../../src/store/deliveries.js';
import { listAttempts } from '../../src/store/delivery-attempts.js';
import { replayEvent, replayWebhookSince } from '../../src/services/outbox.js';
import { changeTransactionStatus, createTransaction } from '../../src/services/transactions.js';
import { disableWebhook, enableWebhook } from '../../src/services/webhooks.js';
import { openDatabase } from '../../src/db/open.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg, tempDir, type TestContext } from '../support/context.js';
import { signatureVerifies, startReceiver, type Received } from './receiver.js';

const SHORT = { 'delivery.retryScheduleSeconds': [0, 5, 60], 'delivery.jitter': 0.2 };

/** After each test: every request any receiver of the test got is checked against its database's keys. */
const signatureChecks: (() => void)[] = [];
afterEach(() => {
  const checks = signatureChecks.splice(0);
  for (const check of checks) check();
});

async function setup(overrides: Record<string, unknown> = {}) {
  const ctx = makeContext(overrides);
  const api = makeApi(ctx);
  const org = await makeOrg(ctx, api.tokens);
  const receiver = await startReceiver();
  signatureChecks.push(() => ctx.db.open && receiver.received.length > 0 && expectAllSigned(ctx, receiver.received));
  const created = await api.http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: receiver.url });
  expect(created.status).toBe(201);
  // random 0.5 = no jitter, so delays are exact.
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  const publicPem = async () =>
    (await api.http.get('/v1/notifications/webhooks/settings/public-key').set('authorization', org.auth)).body.publicKey as string;
  return { ctx, ...api, org, receiver, webhookId: created.body.id as string, dispatcher, publicPem };
}

function verifiesWithOpenssl(r: Received, publicPem: string): boolean {
  const dir = tempDir('borderd-openssl-');
  writeFileSync(join(dir, 'pub.pem'), publicPem);
  writeFileSync(join(dir, 'body.bin'), r.body);
  writeFileSync(join(dir, 'sig.bin'), Buffer.from(String(r.headers['x-signature']), 'base64'));
  try {
    const out = execFileSync(
      'openssl',
      ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sig.bin'), join(dir, 'body.bin')],
      { stdio: 'pipe' },
    );
    return out.toString().includes('Verified OK');
  } catch {
    return false;
  }
}

const verifiesWithNode = (r: Received, publicPem: string): boolean => signatureVerifies(r, publicPem);

/**
 * Every request the receiver got must carry a signature that node:crypto verifies over the exact
 * body, with the public key its x-signature-key-id names (retries and replays included).
 */
function expectAllSigned(ctx: TestContext, received: Received[]): void {
  const keys = new Map(
    (ctx.db.prepare('SELECT id, public_pem AS pem FROM webhook_keys').all() as { id: string; pem: string }[]).map((k) => [k.id, k.pem]),
  );
  expect(received.length).toBeGreaterThan(0);
  for (const r of received) {
    const pem = keys.get(String(r.headers['x-signature-key-id']));
    expect(pem, `key ${String(r.headers['x-signature-key-id'])}`).toBeDefined();
    expect(
      verifiesWithNode(r, pem!),
      `signature of ${String(r.headers['x-event-id'])} attempt ${String(r.headers['x-delivery-attempt'])}`,
    ).toBe(true);
  }
}

/** Not an attempt (its outcome is unknown), still pending, and nobody's lease: the next process may send it at once. */
function expectGivenBackUnattempted(ctx: TestContext, deliveryId: string): void {
  expect(ctx.db.prepare('SELECT claimed_by AS c, lease_until AS l, state, attempts FROM deliveries WHERE id = ?').get(deliveryId)).toEqual({
    c: null,
    l: null,
    state: 'pending',
    attempts: 0,
  });
  expect(listAttempts(ctx.db, deliveryId)).toEqual([]);
}

/** A receiver that answers at once, registered as a webhook with `auth`'s token; what it gets is checked for signatures after the test. */
async function answeringWebhook(ctx: TestContext, http: ReturnType<typeof makeApi>['http'], auth: string) {
  const receiver = await startReceiver();
  signatureChecks.push(() => expectAllSigned(ctx, receiver.received));
  await http.post('/v1/notifications/webhooks/settings').set('authorization', auth).send({ url: receiver.url });
  return receiver;
}

/** Runs `fn` while a started dispatcher delivers; then lets the held answers go and stops it. */
async function whileDispatching(ctx: TestContext, release: () => void, fn: () => Promise<void>): Promise<void> {
  const worker = new Dispatcher(ctx, { random: () => 0.5 });
  worker.start();
  try {
    await fn();
  } finally {
    release();
    await worker.stop();
  }
}

/** Holds every answer of `receiver` (a stalled endpoint) until the returned function is called. */
function holdAnswers(receiver: Awaited<ReturnType<typeof startReceiver>>): () => void {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  receiver.setResponder((_r, res) => void held.then(() => res.end('ok')));
  return release;
}

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
    const patched = await http
      .patch(`/v1/notifications/webhooks/settings/${webhookId}`)
      .set('authorization', org.auth)
      .send({ url: receiver.url });
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
    const w = ctx.db.prepare('SELECT enabled, disabled_reason FROM webhooks WHERE id = ?').get(webhookId) as {
      enabled: number;
      disabled_reason: string;
    };
    expect(w).toEqual({ enabled: 0, disabled_reason: 'endpoint answered 410 Gone' });
  });

  it('treats a timeout and a refused connection as failures, and does not follow redirects', async () => {
    // The same timeout covers the 302 answer below: long enough for a busy machine to get it in time.
    const { ctx, http, org, receiver, dispatcher, webhookId } = await setup({ 'delivery.timeoutMs': 2000 });
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
    // Exactly the two attempts, both to the webhook's own path; nothing ever reached the redirect target.
    expect(receiver.received.map((r) => r.url)).toEqual(['/hook', '/hook']);
    expect(receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2']);
    // A port nobody listens on: refused.
    const closedUrl = receiver.url.replace(/:\d+\//, ':1/');
    await http.patch(`/v1/notifications/webhooks/settings/${webhookId}`).set('authorization', org.auth).send({ url: closedUrl });
    ctx.clock.advance(400_000);
    await dispatcher.runOnce();
    expect(getDelivery(ctx.db, d!.id)!.lastError).toMatch(/ECONNREFUSED/);
    expect(receiver.received.map((r) => r.url)).toEqual(['/hook', '/hook']);
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
    expect(claimDue(ctx.db, d!.webhookId, 'dead-process', now, now + ctx.config.delivery.leaseMs, 1).map((r) => r.id)).toEqual([d!.id]);
    // Leased: another claim does not take it.
    expect(claimDue(ctx.db, d!.webhookId, 'someone-else', now, now + 1000, 10)).toEqual([]);
    expect(ctx.db.prepare('SELECT claimed_by AS c FROM deliveries WHERE id = ?').get(d!.id)).toEqual({ c: 'dead-process' });
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(ctx.config.delivery.leaseMs + 1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(getDelivery(ctx.db, d!.id)!.state).toBe('delivered');
  });

  it('two processes (two connections to one file) running at once send each delivery exactly once', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 5 });
    // Each answer waits a little, so both dispatchers have sends in flight at the same time.
    receiver.setResponder((_r, res) => void setTimeout(() => res.end('ok'), 2));
    const EVENTS = 60;
    for (let i = 0; i < EVENTS; i++) newTx(ctx, org.org.id);
    // A second context is a second better-sqlite3 connection (as a second process has), with its own clock.
    const other = makeContext({ 'database.path': ctx.config.database.path, 'delivery.pollIntervalMs': 5 });
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
    expect(listDeliveries(ctx.db, { state: 'delivered', limit: 100 })).toHaveLength(EVENTS);
    const attempts = ctx.db.prepare('SELECT COUNT(*) AS n FROM delivery_attempts').get() as { n: number };
    expect(attempts.n).toBe(EVENTS);
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
  it('forgets a webhook idle past the pool timeout: its memory is of recent webhooks, not every one since start', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 20 });
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      newTx(ctx, org.org.id);
      await receiver.waitFor(1);
      await worker.drain();
      expect(worker.webhooksTracked).toBe(1);
      // 31 s later by the monotonic clock: the pool is closed as idle at the next tick, and the webhook forgotten.
      const realNow = performance.now.bind(performance);
      const later = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + 31_000);
      try {
        await vi.waitFor(() => expect(worker.webhooksTracked).toBe(0));
      } finally {
        later.mockRestore();
      }
      // Seen again on its next event, and sent to as before.
      newTx(ctx, org.org.id);
      await receiver.waitFor(2);
      expect(worker.webhooksTracked).toBe(1);
    } finally {
      await worker.stop();
    }
  });

  it('is woken by a commit, and stop() finishes the send in flight and leaves no lease behind', async () => {
    // A poll interval far beyond the test: only the in-process signal can start the send.
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    const release = holdAnswers(receiver);
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

  it('a send still hanging when the shutdown grace ends is abandoned unrecorded and its lease given back', async () => {
    const { ctx, org, receiver, webhookId } = await setup({ 'delivery.pollIntervalMs': 3_600_000, 'server.shutdownGraceMs': 50 });
    receiver.setResponder(() => undefined); // never answers; the send timeout (10 s) is far away
    const worker = new Dispatcher(ctx, { random: () => 0.5, owner: 'stopping' });
    worker.start();
    newTx(ctx, org.org.id);
    await receiver.waitFor(1);
    const [d] = listDeliveries(ctx.db, { limit: 1 });
    expect(ctx.db.prepare('SELECT claimed_by AS c FROM deliveries WHERE id = ?').get(d!.id)).toEqual({ c: 'stopping' });
    await worker.stop();
    expectGivenBackUnattempted(ctx, d!.id);
    receiver.setResponder((_r, res) => res.end('ok'));
    const next = new Dispatcher(ctx, { random: () => 0.5 });
    expect(await next.runOnce()).toBe(1);
    expect(getDelivery(ctx.db, d!.id)).toMatchObject({ state: 'delivered', webhookId });
  });

  it('a job still waiting for its signature when the shutdown grace ends is not sent, and its lease is given back', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 3_600_000, 'server.shutdownGraceMs': 50 });
    // The signature is held until well after the grace: the job is claimed and waits for it.
    let signing!: () => void;
    const asked = new Promise<void>((r) => (signing = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const original = Signer.prototype.signAsync;
    const spy = vi.spyOn(Signer.prototype, 'signAsync').mockImplementation(function (this: Signer, key, body) {
      signing();
      return held.then(() => original.call(this, key, body));
    });
    try {
      const worker = new Dispatcher(ctx, { random: () => 0.5 });
      worker.start();
      newTx(ctx, org.org.id);
      await asked;
      const [d] = listDeliveries(ctx.db, { limit: 1 });
      const stopping = worker.stop();
      setTimeout(release, 200); // the grace (50 ms) is over by then
      await stopping;
      expect(receiver.received).toHaveLength(0);
      expectGivenBackUnattempted(ctx, d!.id);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('bounded concurrency', () => {
  it('caps each endpoint, so a stalled endpoint does not hold back the others', async () => {
    const { ctx, http, org, receiver: stalled } = await setup({ 'delivery.concurrency': 6, 'delivery.perEndpointConcurrency': 4 });
    const release = holdAnswers(stalled);
    const fast = await answeringWebhook(ctx, http, org.auth);
    await whileDispatching(ctx, release, async () => {
      for (let i = 0; i < 10; i++) newTx(ctx, org.org.id);
      await fast.waitFor(10);
      await stalled.waitFor(4);
      expect(stalled.received).toHaveLength(4); // its per-endpoint cap, while the other got all ten
      expect(new Set(fast.received.map((r) => r.headers['x-event-id'])).size).toBe(10);
    });
  });
});

describe('an endpoint that stops answering', () => {
  it('gets one send at a time until an answer comes back, then its whole perEndpointConcurrency again', async () => {
    const { ctx, org, receiver, webhookId } = await setup({
      'delivery.perEndpointConcurrency': 4,
      'delivery.timeoutMs': 300,
      'delivery.pollIntervalMs': 20,
    });
    let mode: 'hang' | 'answer once' = 'hang';
    const hung: import('node:http').ServerResponse[] = [];
    receiver.setResponder((_r, res) => {
      if (mode === 'answer once') {
        mode = 'hang';
        res.end('ok');
      } else hung.push(res);
    });
    for (let i = 0; i < 16; i++) newTx(ctx, org.org.id);
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    const most = async (ms: number) => {
      let top = 0;
      for (const until = performance.now() + ms; performance.now() < until; await new Promise((r) => setTimeout(r, 5)))
        top = Math.max(top, worker.sendingTo(webhookId));
      return top;
    };
    try {
      await receiver.waitFor(4); // the first round goes out four at once, and times out
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThan(4), { timeout: 3_000 });
      // No answer came: one at a time now.
      expect(await most(700)).toBe(1);
      mode = 'answer once';
      const answeredAt = receiver.received.length;
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThan(answeredAt), { timeout: 3_000 });
      // One answer came back: the rest go out four at once again (and hang).
      await vi.waitFor(() => expect(worker.sendingTo(webhookId)).toBe(4), { timeout: 3_000 });
    } finally {
      for (const res of hung) res.destroy();
      await worker.stop();
    }
  });

  it.each([
    ['its retries are due', 5_000, 0],
    ['only new events are due, its retries not yet', 1_000, 8],
  ])('still gets one send at a time after a restart, when its last retried send got no answer: %s', async (_case, later, newEvents) => {
    const { ctx, org, receiver, webhookId } = await setup({ ...SHORT, 'delivery.perEndpointConcurrency': 4, 'delivery.timeoutMs': 200 });
    const hung: import('node:http').ServerResponse[] = [];
    receiver.setResponder((_r, res) => void hung.push(res));
    for (let i = 0; i < 8; i++) newTx(ctx, org.org.id);
    try {
      const first = new Dispatcher(ctx, { random: () => 0.5 });
      let attempted = 0;
      for (let pass = 0; pass < 4 && attempted < 8; pass++) attempted += await first.runOnce();
      expect(attempted).toBe(8); // every first attempt timed out
      ctx.clock.advance(later); // a new process starts
      for (let i = 0; i < newEvents; i++) newTx(ctx, org.org.id);
      const restarted = new Dispatcher(ctx, { random: () => 0.5 });
      const sending = restarted.runOnce();
      await vi.waitFor(() => expect(receiver.received.length).toBe(9), { timeout: 3_000 });
      await new Promise((r) => setTimeout(r, 50));
      expect([restarted.sendingTo(webhookId), receiver.received.length]).toEqual([1, 9]);
      await sending;
    } finally {
      for (const res of hung) res.destroy();
    }
  });
});

describe('overall and per-webhook connection budgets', () => {
  it('never has more than delivery.concurrency requests in flight, across webhooks', async () => {
    const { ctx, http, org, receiver } = await setup({ 'delivery.concurrency': 3, 'delivery.perEndpointConcurrency': 4 });
    const release = holdAnswers(receiver);
    // Three webhooks (12 per-endpoint slots in all) on the same holding receiver.
    for (let i = 0; i < 2; i++) {
      await http
        .post('/v1/notifications/webhooks/settings')
        .set('authorization', org.auth)
        .send({ url: `${receiver.url}/${i}` });
    }
    // More deliveries (one per webhook per transaction) than the process may claim: CLAIM_ROUNDS rounds of its 3 send slots.
    const total = 3 * (CLAIM_ROUNDS + 1);
    for (let i = 0; i < CLAIM_ROUNDS + 1; i++) newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    // Up to CLAIM_ROUNDS times the send slots are claimed (the waiting ones get signed meanwhile); three are sent.
    const first = dispatcher.runOnce();
    await receiver.waitFor(3);
    expect(await dispatcher.runOnce()).toBe(0); // every claim taken: nothing more is claimed
    expect(receiver.load.active).toBe(3);
    expect(receiver.load.maxActive).toBe(3);
    release();
    expect(await first).toBe(CLAIM_ROUNDS * 3);
    let sent = CLAIM_ROUNDS * 3;
    while (sent < total) sent += await dispatcher.runOnce();
    expect(sent).toBe(total);
    expect(receiver.load.maxActive).toBe(3);
  });

  it('gives each webhook its own sockets: a hanging webhook does not make another on the same host time out', async () => {
    const { ctx, http, org, receiver, webhookId } = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.timeoutMs': 1000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The first webhook's path hangs until the end of the test; the second one (same host and port) answers at once.
    receiver.setResponder((r, res) => (r.url === '/hook' ? void held.then(() => res.end('late')) : res.end('ok')));
    const second = await http
      .post('/v1/notifications/webhooks/settings')
      .set('authorization', org.auth)
      .send({ url: `${receiver.url}/fast` });
    newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    try {
      expect(await dispatcher.runOnce()).toBe(2);
    } finally {
      release();
    }
    const byWebhook = (id: string) => listDeliveries(ctx.db, { webhookId: id, limit: 1 })[0]!;
    expect(byWebhook(second.body.id as string)).toMatchObject({ state: 'delivered', lastStatus: 200, lastError: null });
    expect(byWebhook(webhookId)).toMatchObject({ state: 'pending', lastStatus: null });
    expect(byWebhook(webhookId).lastError).toMatch(/timeout|abort/i);
    await dispatcher.stop();
  });
});

describe('sharing the process between organizations', () => {
  /** What shareClaims gives each organization when each takes all the room it is given (up to `wants`). */
  function claims(due: string[], held: Record<string, number>, budget: number, wants: Record<string, number> = {}) {
    const got: Record<string, number> = {};
    shareClaims(new Set(due), new Map(Object.entries(held)), budget, (orgId, room) => {
      const took = Math.max(0, Math.min(room, (wants[orgId] ?? Infinity) - (got[orgId] ?? 0)));
      got[orgId] = (got[orgId] ?? 0) + took;
      return took;
    });
    return got;
  }

  it('splits the claims max-min fair: equal parts, a part not used goes to the others, one alone gets everything', () => {
    expect(claims(['a'], {}, 128)).toEqual({ a: 128 });
    expect(claims(['a'], { a: 100 }, 128)).toEqual({ a: 28 });
    expect(claims(['a', 'b'], {}, 128)).toEqual({ a: 64, b: 64 });
    expect(claims(['a', 'b'], {}, 128, { b: 1 })).toEqual({ a: 127, b: 1 });
    expect(claims(['a', 'b', 'c'], {}, 8)).toEqual({ a: 3, b: 3, c: 2 });
    // One that took everything while it was alone claims nothing more; the newcomer still gets its part.
    expect(claims(['a', 'b'], { a: 128 }, 128)).toEqual({ a: 0, b: 64 });
    // However many came after it, the process never holds more than twice its claims.
    expect(claims(['c'], { a: 128, b: 64 }, 128)).toEqual({ c: 43 });
    expect(claims(['d'], { a: 128, b: 64, c: 43 }, 128)).toEqual({ d: 21 });
    expect(claims(['e'], { a: 128, b: 64, c: 43, d: 21 }, 128)).toEqual({ e: 0 });
    // One holding claims with nothing due counts: its holding is its part.
    expect(claims(['b'], { a: 100 }, 128)).toEqual({ b: 64 });
    expect(claims(['b'], { a: 20 }, 128)).toEqual({ b: 108 });
    // What a small one leaves over is split again between the others.
    expect(claims(['a', 'b', 'c'], {}, 9, { a: 1 })).toEqual({ a: 1, b: 4, c: 4 });
    expect(claims(['a', 'b', 'c'], {}, 90, { a: 1, b: 20 })).toEqual({ a: 1, b: 20, c: 69 });
  });

  it('gives the next free send slot to an organization waiting behind another one’s stalled sends, then the slots go back', async () => {
    // Two send slots; organization A has three stalled webhooks with more rows than the process may
    // claim; organization B then writes one event.
    const { ctx, http, tokens, org, receiver: stalled } = await setup({ 'delivery.concurrency': 2, 'delivery.perEndpointConcurrency': 1 });
    const arrivals: string[] = [];
    const held: import('node:http').ServerResponse[] = [];
    stalled.setResponder((_r, res) => {
      arrivals.push('A');
      held.push(res);
    });
    for (let i = 0; i < 2; i++)
      await http
        .post('/v1/notifications/webhooks/settings')
        .set('authorization', org.auth)
        .send({ url: `${stalled.url}/${i}` });
    const orgB = await makeOrg(ctx, tokens, { name: 'Other' });
    const fast = await answeringWebhook(ctx, http, orgB.auth);
    fast.setResponder((_r, res) => {
      arrivals.push('B');
      res.end('ok');
    });
    for (let i = 0; i < 3; i++) newTx(ctx, org.org.id);
    await whileDispatching(
      ctx,
      () => held.splice(0).forEach((res) => res.end('ok')),
      async () => {
        await stalled.waitFor(2);
        newTx(ctx, orgB.org.id);
        // B's row is claimed although A holds every claim the process has.
        await vi.waitFor(() =>
          expect(
            ctx.db
              .prepare(
                'SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.org_id = ? AND d.claimed_by IS NOT NULL',
              )
              .pluck()
              .get(orgB.org.id),
          ).toBe(1),
        );
        held.shift()!.end('ok');
        // The slot A's answer freed goes to B, not to A's next queued row.
        await fast.waitFor(1);
        // With B served, A gets both slots back.
        await vi.waitFor(() => expect(stalled.load.active).toBe(2));
        expect(arrivals.slice(0, 4)).toEqual(['A', 'A', 'B', 'A']);
      },
    );
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
      newTx(ctx, org.org.id);
      const dispatcher = new Dispatcher(ctx, { random: () => random });
      await dispatcher.runOnce();
      const delay = Date.parse(listDeliveries(ctx.db, { limit: 1 })[0]!.nextAttemptAt) - ctx.clock.now();
      expect(delay).not.toBe(5000);
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(6000);
      expect(delay).toBe(expected);
    }
  });

  it('honours a non-zero first entry: enqueue and replay wait that long before the first attempt', async () => {
    const { ctx, org, receiver, dispatcher, webhookId } = await setup({ 'delivery.retryScheduleSeconds': [30, 5] });
    newTx(ctx, org.org.id);
    const [d] = listDeliveries(ctx.db, { limit: 1 });
    expect(Date.parse(d!.nextAttemptAt) - ctx.clock.now()).toBe(30_000);
    ctx.clock.advance(29_999);
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    replayWebhookSince(ctx, webhookId, '2000-01-01T00:00:00Z');
    expect(Date.parse(getDelivery(ctx.db, d!.id)!.nextAttemptAt) - ctx.clock.now()).toBe(30_000);
    expect(await dispatcher.runOnce()).toBe(0);
    ctx.clock.advance(30_000);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(2);
  });

  it('records a signing failure as an attempt and backs off, but never disables the webhook for it, nor spends its attempts', async () => {
    const { ctx, org, receiver, dispatcher, webhookId } = await setup(SHORT);
    newTx(ctx, org.org.id);
    // The private key can no longer be opened (e.g. the wrong master key).
    const sealed = ctx.db.prepare('SELECT private_enc FROM webhook_keys').pluck().get() as string;
    ctx.db.prepare('UPDATE webhook_keys SET private_enc = ?').run('not-a-sealed-value');
    expect(await dispatcher.runOnce()).toBe(1);
    const [d] = listDeliveries(ctx.db, { limit: 1 });
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
    const after = getDelivery(ctx.db, d!.id)!;
    expect(after).toMatchObject({ state: 'pending', attempts: 4 });
    expect(Date.parse(after.nextAttemptAt) - ctx.clock.now()).toBe(60_000);
    const attempts = listAttempts(ctx.db, d!.id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.keyId])).toEqual([
      [1, null, null],
      [2, null, null],
      [3, null, null],
      [4, null, null],
    ]);
    expect(attempts.every((a) => a.error?.startsWith('signing failed: '))).toBe(true);
    expect(receiver.received).toHaveLength(0);
    expect(ctx.db.prepare('SELECT enabled FROM webhooks WHERE id = ?').get(webhookId)).toEqual({ enabled: 1 });

    // The key works again and the endpoint fails: it gets every attempt of its schedule (three),
    // as if the outage had not been, before the webhook is disabled.
    ctx.db.prepare('UPDATE webhook_keys SET private_enc = ?').run(sealed);
    receiver.setResponder((_r, res) => ((res.statusCode = 500), res.end()));
    for (const wait of [60_000, 5_000, 60_000]) {
      expect(ctx.db.prepare('SELECT enabled FROM webhooks WHERE id = ?').get(webhookId)).toEqual({ enabled: 1 });
      ctx.clock.advance(wait);
      expect(await dispatcher.runOnce()).toBe(1);
    }
    expect(receiver.received).toHaveLength(3);
    expect(getDelivery(ctx.db, d!.id)).toMatchObject({ state: 'failed', attempts: 7 });
    expect(ctx.db.prepare('SELECT enabled FROM webhooks WHERE id = ?').get(webhookId)).toEqual({ enabled: 0 });
  });

  it('keeps a future retry across a restart: next_attempt_at unchanged, sent only when due', async () => {
    const { ctx, org, receiver, dispatcher } = await setup(SHORT);
    receiver.setResponder((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    newTx(ctx, org.org.id);
    await dispatcher.runOnce();
    await dispatcher.stop();
    const before = ctx.db.prepare('SELECT id, next_attempt_at AS n, step, attempts FROM deliveries').get() as {
      id: string;
      n: number;
      step: number;
      attempts: number;
    };
    expect(before.n - ctx.clock.now()).toBe(5000);
    ctx.db.close();
    // The restarted process: a new connection and a new dispatcher, its clock where the first one stopped.
    receiver.setResponder((_r, res) => res.end('ok'));
    const restarted = makeContext({ ...SHORT, 'database.path': ctx.config.database.path });
    restarted.clock.set(ctx.clock.now());
    expect(restarted.db.prepare('SELECT id, next_attempt_at AS n, step, attempts FROM deliveries').get()).toEqual(before);
    const again = new Dispatcher(restarted, { random: () => 0.5 });
    expect(await again.runOnce()).toBe(0);
    restarted.clock.advance(4999);
    expect(await again.runOnce()).toBe(0);
    restarted.clock.advance(1);
    expect(await again.runOnce()).toBe(1);
    expect(getDelivery(restarted.db, before.id)).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2']);
    expectAllSigned(restarted, receiver.received);
  });
});

describe('leases of rows that wait long for a send slot', () => {
  const leaseOf = (ctx: TestContext, id: string) =>
    ctx.db.prepare('SELECT lease_until FROM deliveries WHERE id = ?').pluck().get(id) as number;

  it('are renewed while this process holds them, so another process cannot take and send them meanwhile', async () => {
    // Lease: 5 timeouts + 5 s = 30 s. One send slot; the endpoint stalls, so the other rows wait.
    const { ctx, org, receiver, webhookId } = await setup({
      'delivery.perEndpointConcurrency': 1,
      'delivery.timeoutMs': 5_000,
      'delivery.leaseMs': 1,
      'delivery.pollIntervalMs': 20,
    });
    const release = holdAnswers(receiver);
    for (let i = 0; i < 3; i++) newTx(ctx, org.org.id);
    await whileDispatching(ctx, release, async () => {
      await receiver.waitFor(1);
      const ids = ctx.db.prepare('SELECT id FROM deliveries WHERE claimed_by IS NOT NULL').pluck().all() as string[];
      expect(ids).toHaveLength(3);
      // 36 s in three steps: past the first lease, each step past a third of a lease.
      for (let step = 0; step < 3; step++) {
        ctx.clock.advance(12_000);
        const now = ctx.clock.now();
        await vi.waitFor(() => ids.forEach((id) => expect(leaseOf(ctx, id)).toBe(now + 30_000)));
      }
      // Another process looking for due rows finds none of them.
      const now = ctx.clock.now();
      expect(claimDue(ctx.db, webhookId, 'another-process', now, now + 30_000, 10)).toEqual([]);
    });
  });

  it('a queued row whose lease ran short is renewed before it is sent; one another process took meanwhile is not sent', async () => {
    const { ctx, org, receiver, webhookId } = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.pollIntervalMs': 3_600_000 });
    // The first request is held until answer(); the ones after it are answered at once.
    let answer!: () => void;
    const first = new Promise<void>((r) => (answer = r));
    receiver.setResponder((_r, res) => void (receiver.received.length === 1 ? first : Promise.resolve()).then(() => res.end('ok')));
    for (let i = 0; i < 3; i++) newTx(ctx, org.org.id);
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    const sent = dispatcher.runOnce();
    await receiver.waitFor(1);
    const all = ctx.db.prepare('SELECT id FROM deliveries WHERE webhook_id = ? ORDER BY id').pluck().all(webhookId) as string[];
    const queued = all.filter((id) => !receiver.received.some((r) => r.headers['x-event-id'] === getDelivery(ctx.db, id)!.eventId));
    expect(queued).toHaveLength(2);
    // One queued row's lease runs short (its renewal failed); the other's ended and another process took it.
    ctx.db.prepare('UPDATE deliveries SET lease_until = ? WHERE id = ?').run(ctx.clock.now() + 5_000, queued[0]);
    ctx.db.prepare("UPDATE deliveries SET claimed_by = 'another-process' WHERE id = ?").run(queued[1]);
    answer();
    await sent;
    const sentEvents = receiver.received.map((r) => r.headers['x-event-id']);
    expect(sentEvents).toContain(getDelivery(ctx.db, queued[0]!)!.eventId);
    expect(sentEvents).not.toContain(getDelivery(ctx.db, queued[1]!)!.eventId);
    expect(getDelivery(ctx.db, queued[0]!)).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(listAttempts(ctx.db, queued[1]!)).toEqual([]);
    await dispatcher.stop();
  });
});

describe('while another process holds the write lock', () => {
  it('the dispatcher neither claims nor records in a busy wait: the event loop runs on, and the result of a send made meanwhile is written once the lock is free', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.pollIntervalMs': 20 });
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    receiver.setResponder((_r, res) => void held.then(() => res.end('ok')));
    const tx = newTx(ctx, org.org.id);
    changeTransactionStatus(ctx, tx.id, 'Processing');
    const other = openDatabase(ctx.config.database.path);
    await whileDispatching(ctx, answer, async () => {
      await receiver.waitFor(2); // both sends in flight
      other.exec('BEGIN IMMEDIATE'); // another process (a CLI import) takes the write lock
      answer(); // the endpoint answers while the lock is held: the results cannot be written yet
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      await new Promise((r) => setTimeout(r, 300));
      clearInterval(ticker);
      // A busy wait on this thread would have held the ticker (and this test) until the busy timeout.
      expect(ticks).toBeGreaterThan(10);
      expect(listDeliveries(ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(0);
      other.exec('COMMIT');
      await vi.waitFor(() => expect(listDeliveries(ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(2));
    });
    other.close();
    // Each event sent once, and each send's 200 recorded as its one attempt.
    expect(receiver.received).toHaveLength(2);
    for (const d of listDeliveries(ctx.db, { limit: 10 })) expect(listAttempts(ctx.db, d.id).map((a) => a.statusCode)).toEqual([200]);
  });
});

describe('lease renewal, more', () => {
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
    for (let i = 0; i < 2; i++) newTx(ctx, org.org.id);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      await whileDispatching(ctx, release, async () => {
        await receiver.waitFor(1);
        ctx.clock.advance(12_000);
        vi.advanceTimersByTime(10_000);
        const now = ctx.clock.now();
        expect(ctx.db.prepare('SELECT lease_until FROM deliveries').pluck().all()).toEqual([now + 30_000, now + 30_000]);
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a queued row whose lease ran short while another process holds the write lock is not sent, and the loop is not held', async () => {
    const { ctx, org, receiver } = await setup({
      'delivery.perEndpointConcurrency': 1,
      'delivery.timeoutMs': 1_000,
      'delivery.leaseMs': 1,
      'delivery.pollIntervalMs': 3_600_000,
      'database.busyTimeoutMs': 1_000,
    });
    let answer!: () => void;
    const first = new Promise<void>((r) => (answer = r));
    receiver.setResponder((_r, res) => void (receiver.received.length === 1 ? first : Promise.resolve()).then(() => res.end('ok')));
    for (let i = 0; i < 3; i++) newTx(ctx, org.org.id);
    const other = openDatabase(ctx.config.database.path);
    await whileDispatching(ctx, answer, async () => {
      await receiver.waitFor(1);
      other.exec('BEGIN IMMEDIATE'); // a CLI import holds the lock: no renewal can be written
      ctx.clock.advance(9_000); // the queued rows' leases (10 s) run short of a send (1 s + 1 s)
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      answer(); // the slot frees: the queued rows are checked, one after the other
      await new Promise((r) => setTimeout(r, 1_000));
      clearInterval(ticker);
      // Each check waiting in SQLite (1 s to renew, 1 s to give back) would have held this thread for 4 s.
      expect(ticks).toBeGreaterThan(20);
      expect(receiver.received).toHaveLength(1);
      other.exec('COMMIT');
    });
    other.close();
  });
});

describe('a send whose deadline timer fires late', () => {
  it('reads an answer that arrived while the event loop was held, instead of recording a timeout', async () => {
    const { ctx, org, receiver, dispatcher } = await setup({ 'delivery.timeoutMs': 300, 'delivery.pollIntervalMs': 3_600_000 });
    // The endpoint answers after 100 ms; meanwhile this thread is held for 600 ms (a long pause of
    // the loop), so when it runs again the deadline timer is due before the answer is read.
    receiver.setResponder((_r, res) => void setTimeout(() => res.end('ok'), 100));
    newTx(ctx, org.org.id);
    const sending = dispatcher.runOnce();
    await receiver.waitFor(1);
    const until = performance.now() + 600;
    while (performance.now() < until) {
      // held
    }
    expect(await sending).toBe(1);
    expect(listDeliveries(ctx.db, { limit: 1 })[0]).toMatchObject({ state: 'delivered', lastStatus: 200, attempts: 1 });
  });
});

describe('event bodies kept between passes', () => {
  it('a pass that reads more bodies than the cache holds, or finds some cached and reads the rest, sends every row', async () => {
    const { ctx, http, org, receiver } = await setup({ 'delivery.perEndpointConcurrency': 16 });
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5, bodyCacheSize: 4 });
    const late = await startReceiver();
    signatureChecks.push(() => expectAllSigned(ctx, late.received));
    const b = await http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: late.url, enabled: false });
    for (let i = 0; i < 8; i++) newTx(ctx, org.org.id);
    for (let pass = 0; pass < 3 && receiver.received.length < 8; pass++) await dispatcher.runOnce();
    expect(receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(Array(8).fill('1')); // the cache now holds 4 of the bodies
    enableWebhook(ctx, b.body.id as string, '2000-01-01T00:00:00Z'); // all 8 at once to the second webhook: 4 cached, 4 read
    expect(await dispatcher.runOnce()).toBe(8);
    expect(late.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(Array(8).fill('1'));
    expect(ctx.db.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE webhook_id = ? AND state = 'delivered'").get(b.body.id)).toEqual({
      n: 8,
    });
  });
});

describe('leases while the operator changes the webhook', () => {
  async function inFlight() {
    const s = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    let release!: (status: number) => void;
    const held = new Promise<number>((r) => (release = r));
    s.receiver.setResponder((_r, res) => void held.then((status) => ((res.statusCode = status), res.end())));
    newTx(s.ctx, s.org.org.id);
    const [d] = listDeliveries(s.ctx.db, { limit: 1 });
    const sending = s.dispatcher.runOnce();
    await s.receiver.waitFor(1);
    return { ...s, d: d!, release, sending };
  }

  it('disable then enable --replay-since while a send is in flight: the row is not sent twice at once, and the 2xx is recorded', async () => {
    const { ctx, webhookId, d, release, sending, receiver } = await inFlight();
    disableWebhook(ctx, webhookId);
    expect(ctx.db.prepare('SELECT state, claimed_by AS c FROM deliveries WHERE id = ?').get(d.id)).toMatchObject({
      state: 'skipped',
      c: expect.any(String),
    });
    enableWebhook(ctx, webhookId, '2000-01-01T00:00:00Z');
    expect(getDelivery(ctx.db, d.id)!.state).toBe('pending');
    // Another process looks for work right now: the row is still leased by the sender.
    const other = makeContext({ 'database.path': ctx.config.database.path });
    other.clock.set(ctx.clock.now());
    expect(await new Dispatcher(other, { random: () => 0.5, owner: 'other' }).runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    release(200);
    expect(await sending).toBe(1);
    expect(getDelivery(ctx.db, d.id)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200 });
  });

  it('a replay made while a first attempt is in flight keeps its fresh cycle when that attempt fails', async () => {
    const { ctx, webhookId, d, release, sending } = await inFlight();
    disableWebhook(ctx, webhookId);
    ctx.clock.advance(1_000); // the replay's due time differs from the claimed row's
    enableWebhook(ctx, webhookId, '2000-01-01T00:00:00Z');
    const replayed = getDelivery(ctx.db, d.id)!;
    expect(replayed).toMatchObject({ state: 'pending', step: 0 });
    release(500);
    expect(await sending).toBe(1);
    // The failure is recorded as an attempt, but the replay's cycle stands: step 0, due when the replay said.
    expect(listAttempts(ctx.db, d.id)).toHaveLength(1);
    expect(getDelivery(ctx.db, d.id)).toMatchObject({ state: 'pending', step: 0, nextAttemptAt: replayed.nextAttemptAt, lastStatus: 500 });
  });

  it('records every other result of a batch when one cannot be recorded (its row deleted meanwhile)', async () => {
    const s = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    s.receiver.setResponder((_r, res) => void held.then(() => res.end()));
    const tx = newTx(s.ctx, s.org.org.id);
    changeTransactionStatus(s.ctx, tx.id, 'Processing');
    const [gone, kept] = listDeliveries(s.ctx.db, { limit: 2 });
    const sending = s.dispatcher.runOnce();
    await s.receiver.waitFor(2);
    s.ctx.db.prepare('DELETE FROM deliveries WHERE id = ?').run(gone!.id); // its attempt row can no longer be written
    release();
    await sending;
    expect(getDelivery(s.ctx.db, kept!.id)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200 });
    expect(s.ctx.logs.lines.some((l) => l.msg === 'delivery bookkeeping failed' && l.deliveryId === gone!.id)).toBe(true);
    // The batch was first written whole, rolled back, then written result by result: recorded once.
    expect(listAttempts(s.ctx.db, kept!.id)).toHaveLength(1);
    expect(s.ctx.logs.lines.filter((l) => l.deliveryId === kept!.id && l.msg === 'delivery attempt')).toHaveLength(1);
  });

  it('records a 2xx that arrives for a row skipped meanwhile as delivered; a failure leaves it skipped', async () => {
    for (const [status, state] of [
      [200, 'delivered'],
      [500, 'skipped'],
    ] as const) {
      const s = await inFlight();
      disableWebhook(s.ctx, s.webhookId);
      s.release(status);
      await s.sending;
      expect(getDelivery(s.ctx.db, s.d.id)).toMatchObject({ state, attempts: 1, lastStatus: status });
      expect(s.ctx.db.prepare('SELECT claimed_by AS c FROM deliveries WHERE id = ?').get(s.d.id)).toEqual({ c: null });
    }
  });

  it('a 2xx whose lease was lost meanwhile is logged as delivered, not as a failed attempt', async () => {
    const { ctx, d, release, sending } = await inFlight();
    ctx.db.prepare("UPDATE deliveries SET claimed_by = 'someone-else' WHERE id = ?").run(d.id);
    release(200);
    await sending;
    const lines = ctx.logs.lines.filter((l) => l.deliveryId === d.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'delivery attempt', outcome: 'delivered', leaseLost: true, statusCode: 200 });
    expect(ctx.logs.lines.some((l) => l.msg === 'delivery attempt failed')).toBe(false);
    // The attempt is recorded; the row is the new owner's.
    expect(listAttempts(ctx.db, d.id).map((a) => a.statusCode)).toEqual([200]);
    expect(ctx.db.prepare('SELECT claimed_by AS c, state FROM deliveries WHERE id = ?').get(d.id)).toEqual({
      c: 'someone-else',
      state: 'pending',
    });
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
    for (let i = 0; i < 3; i++) newTx(s.ctx, s.org.org.id);
    const sending = s.dispatcher.runOnce();
    await s.receiver.waitFor(1);
    const leased = s.ctx.db.prepare('SELECT COUNT(*) AS n FROM deliveries WHERE claimed_by IS NOT NULL').get() as { n: number };
    expect(leased.n).toBe(3); // all three claimed, one sent
    /** Answers the held send with `status`, waits for the pass, and returns the webhook's row states, sorted. */
    const finish = async (status: number): Promise<string[]> => {
      release(status);
      await sending;
      return listDeliveries(s.ctx.db, { webhookId: s.webhookId, limit: 5 })
        .map((d) => d.state)
        .sort();
    };
    return { ...s, finish };
  }

  it('disable: the queued ones are not sent, stay skipped, and give their lease back for a later replay', async () => {
    const s = await queuedBehindOne();
    disableWebhook(s.ctx, s.webhookId);
    expect(await s.finish(200)).toEqual(['delivered', 'skipped', 'skipped']);
    expect(s.receiver.received).toHaveLength(1);
    const rows = listDeliveries(s.ctx.db, { webhookId: s.webhookId, limit: 5 });
    expect(rows.filter((d) => d.state === 'skipped').every((d) => d.attempts === 0)).toBe(true);
    expect(s.ctx.db.prepare('SELECT COUNT(*) AS n FROM deliveries WHERE claimed_by IS NOT NULL').get()).toEqual({ n: 0 });
    // Re-enabled and replayed: the two it missed go out at once (no lease left to wait for), once each.
    s.receiver.setResponder((_r, res) => res.end('ok'));
    enableWebhook(s.ctx, s.webhookId, '2000-01-01T00:00:00Z');
    let sent = 0;
    for (let i = 0; i < 3; i++) sent += await s.dispatcher.runOnce();
    expect(sent).toBe(3);
    expect(new Set(s.receiver.received.slice(1).map((r) => r.headers['x-event-id'])).size).toBe(3);
  });

  it('disable, and the lease cannot be given back: the queued ones are still not sent, no attempt is counted, and the failure is logged', async () => {
    const s = await queuedBehindOne();
    // The release of a skipped row's lease fails (as a locked or full disk would); nothing else does.
    s.ctx.db.exec(`CREATE TEMP TRIGGER refuse_release BEFORE UPDATE OF claimed_by ON deliveries
      WHEN NEW.claimed_by IS NULL AND OLD.state = 'skipped' AND NEW.state = OLD.state AND NEW.attempts = OLD.attempts
      BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END`);
    disableWebhook(s.ctx, s.webhookId);
    expect(await s.finish(200)).toEqual(['delivered', 'skipped', 'skipped']);
    expect(s.receiver.received).toHaveLength(1);
    const skipped = listDeliveries(s.ctx.db, { webhookId: s.webhookId, limit: 5 }).filter((d) => d.state === 'skipped');
    expect(skipped.map((d) => [d.attempts, listAttempts(s.ctx.db, d.id).length])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    // Still leased: the lease ends on its own.
    expect(s.ctx.db.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE claimed_by IS NOT NULL AND state = 'skipped'").get()).toEqual({
      n: 2,
    });
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

  it('wall clock jumps past the leases of rows still in hand: a second pass does not take them again, each is sent once', async () => {
    const s = await setup({ 'delivery.perEndpointConcurrency': 4, 'delivery.pollIntervalMs': 3_600_000 });
    const release = holdAnswers(s.receiver);
    for (let i = 0; i < 8; i++) newTx(s.ctx, s.org.org.id);
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
    expect(listDeliveries(s.ctx.db, { state: 'delivered', limit: 10 })).toHaveLength(8);
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
    expect(listDeliveries(s.ctx.db, { state: 'delivered', limit: 5 })).toHaveLength(3);
  });
});
