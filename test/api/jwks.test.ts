import { KeyObject, verify } from 'node:crypto';
import { createRemoteJWKSet } from 'jose';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import { listenOnLoopback, makeApi, makeContext, makeOrg } from '../support/context.js';
import { startReceiver } from '../delivery/receiver.js';

const BASE = '/v1/notifications/webhooks/settings';

/** An organization with a webhook, its API on a real socket (jose fetches over HTTP), and a dispatcher. */
async function setup(overlapSeconds = 3600) {
  const ctx = await makeContext({ 'webhooks.rotationOverlapSeconds': overlapSeconds });
  const { app, http, tokens } = makeApi(ctx);
  const org = await makeOrg(ctx, tokens);
  const receiver = await startReceiver();
  const base = await listenOnLoopback(app);
  const created = await http
    .post(BASE)
    .set('authorization', org.auth)
    .send({ url: receiver.url, signatureSchemes: ['x-signature', 'webhook-signature:v1', 'webhook-signature:v1a'] });
  expect(created.status).toBe(201);
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  const deliver = async () => {
    await emitEvent(ctx, org.org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await dispatcher.runOnce()).toBe(1);
    return receiver.received.at(-1)!;
  };
  return { ctx, http, org, base, jwksUrl: `${base}/v1/organizations/${org.org.id}/jwks.json`, deliver };
}

describe('GET /v1/organizations/{id}/jwks.json', () => {
  it('is read by jose’s createRemoteJWKSet without a token: the kid of x-signature-key-id verifies x-signature, the EdDSA key verifies v1a', async () => {
    const s = await setup();
    const delivery = await s.deliver();
    const res = await fetch(s.jwksUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const set = (await res.json()) as { keys: Record<string, string>[] };
    expect(set.keys.map((k) => [k.kty, k.alg, k.use, k.crv])).toEqual([
      ['RSA', 'RS256', 'sig', undefined],
      ['OKP', 'EdDSA', 'sig', 'Ed25519'],
    ]);
    expect(set.keys[0]!.kid).toBe(delivery.headers['x-signature-key-id']);

    const jwks = createRemoteJWKSet(new URL(s.jwksUrl));
    const rsa = KeyObject.from(await jwks({ alg: 'RS256', kid: String(delivery.headers['x-signature-key-id']) }));
    expect(verify('sha256', delivery.body, rsa, Buffer.from(String(delivery.headers['x-signature']), 'base64'))).toBe(true);

    const ed = KeyObject.from(await jwks({ alg: 'EdDSA', kid: set.keys[1]!.kid }));
    const v1a = String(delivery.headers['webhook-signature'])
      .split(' ')
      .find((e) => e.startsWith('v1a,'))!
      .slice(4);
    const signed = Buffer.concat([
      Buffer.from(`${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.`),
      delivery.body,
    ]);
    expect(verify(null, signed, ed, Buffer.from(v1a, 'base64'))).toBe(true);
    expect(verify(null, Buffer.concat([signed, Buffer.from(' ')]), ed, Buffer.from(v1a, 'base64'))).toBe(false);
  });

  it('keeps a rotated key for webhooks.rotationOverlapSeconds beside the new one, then drops it', async () => {
    const s = await setup(600);
    const before = await s.deliver();
    const oldKid = String(before.headers['x-signature-key-id']);
    const oldEd = ((await (await fetch(s.jwksUrl)).json()) as { keys: { kid: string; kty: string }[] }).keys.find(
      (k) => k.kty === 'OKP',
    )!.kid;
    const rotated = await s.http.post(`${BASE}/public-key`).set('authorization', s.org.auth);
    expect(rotated.status).toBe(201);
    const after = await s.deliver();
    expect(after.headers['x-signature-key-id']).toBe(rotated.body.keyId);
    const kids = async () => ((await (await fetch(s.jwksUrl)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const during = await kids();
    expect(during.slice(0, 2)).toEqual([rotated.body.keyId, oldKid]);
    expect(during).toHaveLength(4);
    expect(during[3]).toBe(oldEd);
    expect(during[2]).not.toBe(oldEd);
    s.ctx.clock.advance(600_001);
    expect(await kids()).toEqual([rotated.body.keyId, during[2]]);
  });

  it('answers an unknown organization 404 in problem JSON, and an organization without keys an empty set', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const org = await makeOrg(ctx, tokens);
    const missing = await http.get('/v1/organizations/org_nope/jwks.json');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.body).toMatchObject({ status: 404, code: 'not_found' });
    const empty = await http.get(`/v1/organizations/${org.org.id}/jwks.json`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ keys: [] });
  });
});
