import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import { verifyStandardWebhook } from '../../src/verify/standard-webhooks.js';
import { makeApi, makeContext, makeOrg, type TestContext } from '../support/context.js';
import { signatureVerifies, startReceiver, type Received } from './receiver.js';

const BASE = '/v1/notifications/webhooks/settings';
const DAY_MS = 86_400_000;

afterEach(() => vi.useRealTimers());

/**
 * The `standardwebhooks` package (the specification's own TypeScript library, written elsewhere)
 * checks the timestamp against Date; Date is set to the test's clock so a moved clock is the
 * package's too.
 */
function verifiesWith(secret: string, r: Received, clock: TestContext['clock']): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock.now());
  try {
    new Webhook(secret).verify(r.body.toString(), {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

async function setup(overrides: Record<string, unknown> = {}) {
  const ctx = await makeContext({ 'delivery.retryScheduleSeconds': [0, 5, 60], 'delivery.jitter': 0, ...overrides });
  const { http, tokens } = makeApi(ctx);
  const org = await makeOrg(ctx, tokens);
  const receiver = await startReceiver();
  const created = await http.post(BASE).set('authorization', org.auth).send({ url: receiver.url });
  expect(created.status).toBe(201);
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  const deliver = async () => {
    await emitEvent(ctx, org.org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await dispatcher.runOnce()).toBe(1);
    return receiver.received.at(-1)!;
  };
  return { ctx, http, org, receiver, dispatcher, deliver, id: created.body.id as string, secret: created.body.secret as string };
}

describe('Standard Webhooks headers on every delivery', () => {
  it('are verified by the standardwebhooks package; webhook-id is the event id across retries, the timestamp each send time', async () => {
    const s = await setup();
    expect(s.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    let fail = true;
    s.receiver.setResponder((_r, res) => {
      res.statusCode = fail ? 503 : 200;
      fail = false;
      res.end();
    });
    const event = await emitEvent(s.ctx, s.org.org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await s.dispatcher.runOnce()).toBe(1);
    s.ctx.clock.advance(5000);
    expect(await s.dispatcher.runOnce()).toBe(1);
    const [first, retry] = s.receiver.received;
    for (const r of [first!, retry!]) {
      expect(r.headers['webhook-id']).toBe(event.event.id);
      expect(String(r.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(verifiesWith(s.secret, r, s.ctx.clock)).toBe(true);
      // x-signature is untouched beside them.
      const key = await s.http.get(`${BASE}/public-key`).set('authorization', s.org.auth);
      expect(signatureVerifies(r, key.body.publicKey as string)).toBe(true);
    }
    expect(Number(retry!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp'])).toBe(5);
    expect(Number(retry!.headers['webhook-timestamp'])).toBe(Math.floor(s.ctx.clock.now() / 1000));
    // /openapi.json names every header a delivery carries, and no other (those of the HTTP exchange
    // aside): traceparent too, which a send carries while tracing is on (off here).
    const doc = await s.http.get('/openapi.json');
    const declared = (doc.body.webhooks.event.post.parameters as { name: string; in: string }[]).map((p) => p.name).sort();
    const sent = Object.keys(first!.headers)
      .filter((h) => !['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(h))
      .sort();
    expect(sent).not.toContain('traceparent');
    expect(declared).toEqual([...sent, 'traceparent'].sort());
    // Another webhook's secret does not verify it.
    const other = await s.http
      .post(BASE)
      .set('authorization', s.org.auth)
      .send({ url: `${s.receiver.url}/2` });
    expect(verifiesWith(other.body.secret as string, first!, s.ctx.clock)).toBe(false);
  });

  it('shows the secret once at creation, then only through its endpoint; settings name the schemes', async () => {
    const s = await setup();
    const one = await s.http.get(`${BASE}/${s.id}`).set('authorization', s.org.auth);
    expect(one.body.secret).toBeUndefined();
    expect(one.body.signatureSchemes).toEqual(['x-signature', 'webhook-signature:v1']);
    const list = await s.http.get(BASE).set('authorization', s.org.auth);
    expect(list.body[0].signatureSchemes).toEqual(['x-signature', 'webhook-signature:v1']);
    const read = await s.http.get(`${BASE}/${s.id}/secret`).set('authorization', s.org.auth);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ secret: s.secret, createdAt: expect.any(String), previousExpiresAt: null });
    // Sealed at rest: the database never holds the text.
    const stored = await s.ctx.db.column<string>('SELECT secret_enc FROM webhook_secrets');
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(s.secret.slice(6, 20));
  });

  it("answers another organization's webhook with 404 on the secret routes", async () => {
    const s = await setup();
    const { tokens } = makeApi(s.ctx);
    const other = await makeOrg(s.ctx, tokens, { name: 'Other' });
    const read = await s.http.get(`${BASE}/${s.id}/secret`).set('authorization', other.auth);
    expect(read.status).toBe(404);
    expect(read.headers['content-type']).toContain('application/problem+json');
    expect(JSON.stringify(read.body)).not.toContain('whsec_');
    expect((await s.http.post(`${BASE}/${s.id}/secret/rotate`).set('authorization', other.auth)).status).toBe(404);
    expect((await s.http.get(`${BASE}/whk_nothing/secret`).set('authorization', s.org.auth)).status).toBe(404);
    // The rotation refused changed nothing.
    expect((await s.http.get(`${BASE}/${s.id}/secret`).set('authorization', s.org.auth)).body.secret).toBe(s.secret);
  });
});

describe('secret rotation with overlap', () => {
  it('signs with old and new during the window (webhooks.rotationOverlapSeconds), with the new alone after it', async () => {
    const s = await setup({ 'webhooks.rotationOverlapSeconds': 600 });
    const rotated = await s.http.post(`${BASE}/${s.id}/secret/rotate`).set('authorization', s.org.auth);
    expect(rotated.status).toBe(201);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(s.secret);
    expect(rotated.body.previousExpiresAt).toBe(new Date(s.ctx.clock.now() + 600_000).toISOString());

    const during = await s.deliver();
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiesWith(fresh, during, s.ctx.clock)).toBe(true);
    expect(verifiesWith(s.secret, during, s.ctx.clock)).toBe(true);

    s.ctx.clock.advance(600_000);
    const after = await s.deliver();
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiesWith(fresh, after, s.ctx.clock)).toBe(true);
    expect(verifiesWith(s.secret, after, s.ctx.clock)).toBe(false);
    expect((await s.http.get(`${BASE}/${s.id}/secret`).set('authorization', s.org.auth)).body.previousExpiresAt).toBeNull();
  });

  it('a rotation while the window is open replaces the pending secret; the old one keeps its original end', async () => {
    const s = await setup();
    const first = await s.http.post(`${BASE}/${s.id}/secret/rotate`).set('authorization', s.org.auth);
    const end = first.body.previousExpiresAt as string;
    expect(end).toBe(new Date(s.ctx.clock.now() + DAY_MS).toISOString());
    s.ctx.clock.advance(600_000);
    const second = await s.http.post(`${BASE}/${s.id}/secret/rotate`).set('authorization', s.org.auth);
    expect(second.status).toBe(201);
    expect(second.body.previousExpiresAt).toBe(end);

    const r = await s.deliver();
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiesWith(second.body.secret as string, r, s.ctx.clock)).toBe(true);
    expect(verifiesWith(s.secret, r, s.ctx.clock)).toBe(true);
    expect(verifiesWith(first.body.secret as string, r, s.ctx.clock)).toBe(false);

    // The window is not stretched by the second rotation.
    s.ctx.clock.set(Date.parse(end));
    const later = await s.deliver();
    expect(verifiesWith(s.secret, later, s.ctx.clock)).toBe(false);
    expect(verifiesWith(second.body.secret as string, later, s.ctx.clock)).toBe(true);
  });

  it('with an overlap of 0 the replaced secret stops at once', async () => {
    const s = await setup({ 'webhooks.rotationOverlapSeconds': 0 });
    const rotated = await s.http.post(`${BASE}/${s.id}/secret/rotate`).set('authorization', s.org.auth);
    const r = await s.deliver();
    expect(verifiesWith(rotated.body.secret as string, r, s.ctx.clock)).toBe(true);
    expect(verifiesWith(s.secret, r, s.ctx.clock)).toBe(false);
  });
});

describe('organization key overlap', () => {
  it('the public-key route answers the replaced key by its id during the window, not after, and not to another organization', async () => {
    const s = await setup({ 'webhooks.rotationOverlapSeconds': 600 });
    const before = await s.deliver();
    const oldId = String(before.headers['x-signature-key-id']);
    const rotated = await s.http.post(`${BASE}/public-key`).set('authorization', s.org.auth);
    expect(rotated.status).toBe(201);
    expect(Object.keys(rotated.body).sort()).toEqual(['algorithm', 'createdAt', 'keyId', 'publicKey']);

    const old = await s.http.get(`${BASE}/public-key`).query({ keyId: oldId }).set('authorization', s.org.auth);
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ keyId: oldId, algorithm: 'RSA-SHA256', retiredAt: new Date(s.ctx.clock.now()).toISOString() });
    expect(signatureVerifies(before, old.body.publicKey as string)).toBe(true);
    const current = await s.http
      .get(`${BASE}/public-key`)
      .query({ keyId: rotated.body.keyId as string })
      .set('authorization', s.org.auth);
    expect(current.body).toEqual(rotated.body);

    const { tokens } = makeApi(s.ctx);
    const other = await makeOrg(s.ctx, tokens, { name: 'Other' });
    expect((await s.http.get(`${BASE}/public-key`).query({ keyId: oldId }).set('authorization', other.auth)).status).toBe(404);

    s.ctx.clock.advance(600_000);
    const gone = await s.http.get(`${BASE}/public-key`).query({ keyId: oldId }).set('authorization', s.org.auth);
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toContain('rotationOverlapSeconds');
  });
});

describe('verifyStandardWebhook on real deliveries', () => {
  it('refuses a delivery replayed after the tolerance, and says by how much it is off', async () => {
    const s = await setup();
    const r = await s.deliver();
    const now = () => s.ctx.clock.now();
    expect(verifyStandardWebhook(r.body, r.headers as Record<string, string>, s.secret, { now })).toMatchObject({
      id: r.headers['webhook-id'],
    });
    s.ctx.clock.advance(301_000);
    expect(() => verifyStandardWebhook(r.body, r.headers as Record<string, string>, s.secret, { now })).toThrow(
      expect.objectContaining({ code: 'timestamp_too_old', message: expect.stringContaining('301 s behind') }),
    );
  });
});
