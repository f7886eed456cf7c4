import express from 'express';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import {
  createTestSigner,
  createWebhookMiddleware,
  fetchJwks,
  fetchPublicKey,
  jwksPath,
  verifyStandardWebhookV1a,
} from '../../src/verify/index.js';
import { listenOnLoopback, makeApi, makeContext, makeOrg } from '../support/context.js';
import { startReceiver, type Received } from '../delivery/receiver.js';

const BASE = '/v1/notifications/webhooks/settings';

/** A delivery signed by a key borderd never made, naming a key id of its own. */
const forger = createTestSigner();
const forgedDelivery = () =>
  forger.signEvent('Transaction_Created', {
    id: 'txn_1',
    externalId: null,
    status: 'Pending',
    statusReason: null,
    updatedAt: '2026-01-01T00:00:00.000Z',
  } as never);

/** borderd's API on a socket, counting the requests each path gets, an organization with a v1a webhook, and a dispatcher. */
async function setup() {
  const ctx = await makeContext({ 'webhooks.rotationOverlapSeconds': 3600 });
  const { app, http, tokens } = makeApi(ctx);
  const org = await makeOrg(ctx, tokens);
  const requests = new Map<string, number>();
  const counting = express();
  counting.use((req, _res, next) => {
    const path = req.path + (req.query.keyId ? '?keyId' : '');
    requests.set(path, (requests.get(path) ?? 0) + 1);
    next();
  });
  counting.use(app);
  const base = await listenOnLoopback(counting);
  const receiver = await startReceiver();
  const created = await http
    .post(BASE)
    .set('authorization', org.auth)
    .send({ url: receiver.url, signatureSchemes: ['x-signature', 'webhook-signature:v1', 'webhook-signature:v1a'] });
  expect(created.status).toBe(201);
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  const deliver = async (): Promise<Received> => {
    await emitEvent(ctx, org.org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await dispatcher.runOnce()).toBe(1);
    return receiver.received.at(-1)!;
  };
  const rotate = async () => expect((await http.post(`${BASE}/public-key`).set('authorization', org.auth)).status).toBe(201);
  const jwksUrl = base + jwksPath(org.org.id);
  return { ctx, org, base, jwksUrl, requests, deliver, rotate, clientId: org.client.id, clientSecret: org.client.clientSecret };
}

describe('fetchJwks (borderd/verify)', () => {
  it('verifies x-signature by its key id, fetching the set again for a key made since, at most once per interval for unknown ids', async () => {
    const s = await setup();
    let clock = 1_000_000;
    const source = fetchJwks(s.jwksUrl, { now: () => clock });
    const first = await s.deliver();
    expect((await source.verify(first.body, first.headers)).id).toBe(first.headers['x-event-id']);
    expect(s.requests.get(jwksPath(s.org.org.id))).toBe(1);
    // A rotation: the next delivery names a key the cached set lacks, and one fetch finds it.
    await s.rotate();
    const after = await s.deliver();
    expect(after.headers['x-signature-key-id']).not.toBe(first.headers['x-signature-key-id']);
    clock += 5_000;
    expect((await source.verify(after.body, after.headers)).id).toBe(after.headers['x-event-id']);
    expect(s.requests.get(jwksPath(s.org.org.id))).toBe(2);
    // Forged key ids: one fetch within the interval, however many deliveries name them.
    clock += 5_000;
    for (let i = 0; i < 20; i++) {
      const forged = forgedDelivery();
      await expect(source.verify(forged.body, forged.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    }
    expect(s.requests.get(jwksPath(s.org.org.id))).toBe(3);
    // The replaced key is still published for the overlap: a delivery it signed verifies from the cache.
    expect((await source.verify(first.body, first.headers)).id).toBe(first.headers['x-event-id']);
    expect(s.requests.get(jwksPath(s.org.org.id))).toBe(3);
  });

  it('verifies v1a with the Ed25519 keys of the set, and the middleware does so from jwksUrl alone', async () => {
    const s = await setup();
    const d = await s.deliver();
    const source = fetchJwks(s.jwksUrl);
    expect((await source.verifyV1a(d.body, d.headers)).id).toBe(d.headers['webhook-id']);
    // A body changed in transit does not verify.
    const tampered = Buffer.from(d.body.toString().replace('Completed', 'Cancelled'));
    await expect(source.verifyV1a(tampered, d.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    // A v1a signature made with the key a rotation replaced still verifies (it stays in the set for the overlap).
    await s.rotate();
    const fresh = fetchJwks(s.jwksUrl);
    expect((await fresh.verifyV1a(d.body, d.headers)).id).toBe(d.headers['webhook-id']);

    const app = express();
    app.post('/hook', createWebhookMiddleware({ jwksUrl: s.jwksUrl }), (req, res) => void res.json({ got: req.webhookEvent?.id }));
    const url = await listenOnLoopback(app);
    const onlyV1a = {
      'content-type': 'application/json',
      'webhook-id': String(d.headers['webhook-id']),
      'webhook-timestamp': String(d.headers['webhook-timestamp']),
      'webhook-signature': String(d.headers['webhook-signature'])
        .split(' ')
        .filter((e) => e.startsWith('v1a,'))
        .join(' '),
    };
    const ok = await fetch(`${url}/hook`, { method: 'POST', headers: onlyV1a, body: d.body });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ got: d.headers['webhook-id'] });
    const bad = await fetch(`${url}/hook`, { method: 'POST', headers: onlyV1a, body: tampered });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'no_key_matches' });
  });

  it('verifyStandardWebhookV1a refuses an unreadable key as invalid_public_key, and a delivery without v1a as no_key_matches', async () => {
    const s = await setup();
    const d = await s.deliver();
    expect(() => verifyStandardWebhookV1a(d.body, d.headers, 'whpk_abc')).toThrow(expect.objectContaining({ code: 'invalid_public_key' }));
    expect(() => verifyStandardWebhookV1a(d.body, d.headers, undefined as never)).toThrow(
      expect.objectContaining({ code: 'invalid_public_key' }),
    );
    const set = (await (await fetch(s.jwksUrl)).json()) as { keys: { kty: string; x?: string }[] };
    const ed = set.keys.find((k) => k.kty === 'OKP')!;
    const whpk = `whpk_${Buffer.from(ed.x!, 'base64url').toString('base64')}`;
    expect(verifyStandardWebhookV1a(d.body, d.headers, whpk).id).toBe(d.headers['webhook-id']);
    const v1Only = { ...d.headers, 'webhook-signature': String(d.headers['webhook-signature']).split(' ')[0] };
    expect(() => verifyStandardWebhookV1a(d.body, v1Only, whpk)).toThrow(expect.objectContaining({ code: 'no_key_matches' }));
  });
});

describe('fetchPublicKey asks for an unknown key id', () => {
  it('fetches the key a delivery names by its id after a rotation, and only once per interval for forged ids', async () => {
    const s = await setup();
    let clock = 1_000_000;
    const source = fetchPublicKey(s.base, { clientId: s.clientId, clientSecret: s.clientSecret }, { now: () => clock });
    const first = await s.deliver();
    await source.verify(first.body, first.headers);
    await s.rotate();
    const after = await s.deliver();
    clock += 5_000;
    await source.verify(after.body, after.headers);
    expect(s.requests.get(`${BASE}/public-key?keyId`)).toBe(1);
    // The old key is asked for by id too, and answered within the overlap.
    clock += 5_000;
    await source.verify(first.body, first.headers);
    expect(s.requests.get(`${BASE}/public-key?keyId`)).toBe(2);
    // An id borderd does not publish: refused with no_key_matches, one request per interval.
    clock += 5_000;
    for (let i = 0; i < 10; i++) {
      const forged = forgedDelivery();
      await expect(source.verify(forged.body, forged.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    }
    expect(s.requests.get(`${BASE}/public-key?keyId`)).toBe(3);
  });
});
