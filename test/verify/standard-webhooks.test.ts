import express from 'express';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import {
  createTestSigner,
  createWebhookMiddleware,
  verifyStandardWebhook,
  type WebhookMiddlewareOptions,
  type WebhookVerificationCode,
} from '../../src/verify/index.js';
import { makeApi, makeContext, makeOrg } from '../support/context.js';
import { startReceiver } from '../delivery/receiver.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const body = JSON.stringify({ id: 'evt_1', type: 'Transaction_Created', data: {} });

/** Headers made by the `standardwebhooks` package itself, at `atMs`. */
function signedBy(secret: string, atMs: number, id = 'evt_1', payload = body) {
  const timestamp = Math.floor(atMs / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(secret).sign(id, new Date(timestamp * 1000), payload),
  };
}

const codeOf = (fn: () => unknown): WebhookVerificationCode | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: WebhookVerificationCode }).code;
  }
  return undefined;
};

describe('verifyStandardWebhook', () => {
  const now = () => NOW;

  it('accepts what the standardwebhooks package signs, and any one matching entry of several', () => {
    expect(verifyStandardWebhook(body, signedBy(SECRET, NOW), SECRET, { now })).toMatchObject({ id: 'evt_1' });
    const other = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const both = signedBy(SECRET, NOW);
    both['webhook-signature'] = `${signedBy(other, NOW)['webhook-signature']} v1a,AAAA ${both['webhook-signature']}`;
    expect(verifyStandardWebhook(body, both, SECRET, { now })).toMatchObject({ id: 'evt_1' });
    expect(verifyStandardWebhook(body, both, [other], { now })).toMatchObject({ id: 'evt_1' });
    // The secret without its prefix is the same key.
    expect(verifyStandardWebhook(body, both, SECRET.slice(6), { now })).toMatchObject({ id: 'evt_1' });
  });

  it('refuses a timestamp outside the tolerance either way, and says by how much and why', () => {
    const old = signedBy(SECRET, NOW - 301_000);
    expect(() => verifyStandardWebhook(body, old, SECRET, { now })).toThrow(
      expect.objectContaining({
        code: 'timestamp_too_old',
        message: expect.stringMatching(/301 s behind .* 300 s tolerance.*clocks disagree/),
      }),
    );
    expect(verifyStandardWebhook(body, old, SECRET, { now, toleranceSeconds: 600 })).toMatchObject({ id: 'evt_1' });
    const ahead = signedBy(SECRET, NOW + 3_600_000);
    expect(() => verifyStandardWebhook(body, ahead, SECRET, { now })).toThrow(
      expect.objectContaining({ code: 'timestamp_too_new', message: expect.stringContaining('3600 s ahead') }),
    );
    expect(codeOf(() => verifyStandardWebhook(body, signedBy(SECRET, NOW - 300_000), SECRET, { now }))).toBeUndefined();
  });

  it('has a stable code for each way a delivery is wrong', () => {
    const good = signedBy(SECRET, NOW);
    const cases: [Record<string, string>, WebhookVerificationCode][] = [
      [{ ...good, 'webhook-signature': '' }, 'missing_header'],
      [{ 'webhook-timestamp': good['webhook-timestamp'], 'webhook-signature': good['webhook-signature'] }, 'missing_header'],
      [{ ...good, 'webhook-timestamp': '17e8' }, 'invalid_timestamp'],
      [{ ...good, 'webhook-signature': 'v1' }, 'malformed_signature'],
      [{ ...good, 'webhook-signature': 'v1,not base64!' }, 'malformed_signature'],
      [{ ...good, 'webhook-id': 'evt_2' }, 'no_secret_matches'],
      [signedBy(SECRET, NOW, 'evt_other'), 'no_secret_matches'],
    ];
    for (const [headers, code] of cases)
      expect(
        codeOf(() => verifyStandardWebhook(body, headers, SECRET, { now })),
        JSON.stringify(headers),
      ).toBe(code);
    expect(codeOf(() => verifyStandardWebhook(`${body} `, good, SECRET, { now }))).toBe('no_secret_matches');
    expect(codeOf(() => verifyStandardWebhook(body, good, 'whsec_', { now }))).toBe('invalid_secret');
    expect(codeOf(() => verifyStandardWebhook(body, good, undefined as never, { now }))).toBe('invalid_secret');
    expect(codeOf(() => verifyStandardWebhook(JSON.parse(body) as never, good, SECRET, { now }))).toBe('body_not_raw');
  });

  it('the test signer makes deliveries it verifies, and old ones it refuses', () => {
    const signer = createTestSigner({ modulusLength: 1024, now: () => NOW - 600_000 });
    const d = signer.signEvent('Transaction_Created', { id: 'txn_1' } as never);
    expect(verifyStandardWebhook(d.body, d.headers, signer.webhookSecret, { now: () => NOW - 600_000 })).toEqual(d.event);
    expect(codeOf(() => verifyStandardWebhook(d.body, d.headers, signer.webhookSecret, { now }))).toBe('timestamp_too_old');
  });
});

/** A real delivery of an in-process dispatcher, and its webhook's secret. */
async function realDelivery() {
  const ctx = await makeContext();
  const { http, tokens } = makeApi(ctx);
  const org = await makeOrg(ctx, tokens);
  const receiver = await startReceiver();
  const created = await http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: receiver.url });
  const key = await http.get('/v1/notifications/webhooks/settings/public-key').set('authorization', org.auth);
  await emitEvent(ctx, org.org.id, 'Transaction_Updated', { status: 'Completed' });
  expect(await new Dispatcher(ctx, { random: () => 0.5 }).runOnce()).toBe(1);
  const r = receiver.received[0]!;
  const headers = Object.fromEntries(
    Object.entries(r.headers).filter(([k]) => k.startsWith('x-') || k.startsWith('webhook-') || k === 'content-type'),
  ) as Record<string, string>;
  return {
    body: r.body.toString(),
    headers,
    secret: created.body.secret as string,
    publicKey: key.body.publicKey as string,
    sentMs: ctx.clock.now(),
  };
}

function appWith(opts: WebhookMiddlewareOptions) {
  const app = express();
  const seen: string[] = [];
  app.post('/hook', createWebhookMiddleware(opts), (req, res) => {
    seen.push(req.webhookEvent!.id);
    res.json({ ok: true });
  });
  return { app, seen };
}

describe('createWebhookMiddleware with Standard Webhooks', () => {
  it('takes a real delivery in the window and refuses it replayed after the window', async () => {
    const d = await realDelivery();
    let nowMs = d.sentMs;
    const { app, seen } = appWith({ publicKey: d.publicKey, webhookSecret: d.secret, now: () => nowMs });
    const fresh = await request(app).post('/hook').set(d.headers).send(d.body);
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(seen).toEqual([d.headers['webhook-id']]);

    nowMs = d.sentMs + 5 * 60_000 + 1_000;
    const replayed = await request(app).post('/hook').set(d.headers).send(d.body);
    expect(replayed.status).toBe(400);
    expect(replayed.headers['content-type']).toContain('application/problem+json');
    expect(replayed.body).toMatchObject({ code: 'timestamp_too_old' });
    expect(seen).toHaveLength(1);
  });

  it('with a secret and a public key, refuses a delivery whose webhook-* headers were stripped, unless allowXSignatureOnly', async () => {
    const d = await realDelivery();
    const rsaOnly = Object.fromEntries(Object.entries(d.headers).filter(([k]) => !k.startsWith('webhook-')));
    expect(rsaOnly['x-signature']).toBeTruthy();
    // A captured delivery long after the window: stripping its headers must not skip the window.
    const later = appWith({ publicKey: d.publicKey, webhookSecret: d.secret, now: () => d.sentMs + 3_600_000 });
    const stripped = await request(later.app).post('/hook').set(rsaOnly).send(d.body);
    expect(stripped.status).toBe(400);
    expect(stripped.body).toMatchObject({ code: 'missing_header' });
    expect((await request(later.app).post('/hook').set(d.headers).send(d.body)).body).toMatchObject({ code: 'timestamp_too_old' });
    expect(later.seen).toEqual([]);

    const migrating = appWith({
      publicKey: d.publicKey,
      webhookSecret: d.secret,
      allowXSignatureOnly: true,
      now: () => d.sentMs + 3_600_000,
    });
    expect((await request(migrating.app).post('/hook').set(rsaOnly).send(d.body)).status).toBe(200);
    // Any webhook-* header there: Standard Webhooks is checked, window included.
    const partial = await request(migrating.app)
      .post('/hook')
      .set({ ...rsaOnly, 'webhook-id': d.headers['webhook-id'] })
      .send(d.body);
    expect(partial.body).toMatchObject({ code: 'missing_header' });
    expect((await request(migrating.app).post('/hook').set(d.headers).send(d.body)).body).toMatchObject({ code: 'timestamp_too_old' });
    expect(migrating.seen).toEqual([d.headers['webhook-id']]);

    const strict = appWith({ publicKey: d.publicKey, webhookSecret: d.secret, requireStandardWebhooks: true, now: () => d.sentMs });
    const refused = await request(strict.app).post('/hook').set(rsaOnly).send(d.body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'missing_header' });
    expect((await request(strict.app).post('/hook').set(d.headers).send(d.body)).status).toBe(200);
    // A secret alone: Standard Webhooks or nothing.
    const secretOnly = appWith({ webhookSecret: d.secret, now: () => d.sentMs });
    expect((await request(secretOnly.app).post('/hook').set(rsaOnly).send(d.body)).body).toMatchObject({ code: 'missing_header' });
    expect((await request(secretOnly.app).post('/hook').set(d.headers).send(d.body)).status).toBe(200);
    expect(strict.seen).toHaveLength(1);
  });

  it('stops at setup on an unreadable secret, and on requireStandardWebhooks without one', () => {
    expect(() => createWebhookMiddleware({ webhookSecret: process.env.BORDERD_NO_SUCH_SECRET as string })).toThrow(
      expect.objectContaining({ code: 'invalid_secret' }),
    );
    expect(() =>
      createWebhookMiddleware({ publicKey: createTestSigner({ modulusLength: 1024 }).publicKey, requireStandardWebhooks: true }),
    ).toThrow(expect.objectContaining({ code: 'invalid_secret' }));
    const publicKey = createTestSigner({ modulusLength: 1024 }).publicKey;
    expect(() => createWebhookMiddleware({ publicKey, allowXSignatureOnly: true })).toThrow(
      expect.objectContaining({ code: 'invalid_secret' }),
    );
    expect(() => createWebhookMiddleware({ webhookSecret: SECRET, allowXSignatureOnly: true })).toThrow(
      expect.objectContaining({ code: 'invalid_public_key' }),
    );
    expect(() =>
      createWebhookMiddleware({ publicKey, webhookSecret: SECRET, allowXSignatureOnly: true, requireStandardWebhooks: true }),
    ).toThrow(expect.objectContaining({ code: 'invalid_secret' }));
  });

  it('fails closed on a tolerance that is not a finite number ≥ 0, at setup and in verifyStandardWebhook', () => {
    const headers = signedBy(SECRET, NOW - 3_600_000);
    for (const toleranceSeconds of [NaN, Infinity, -1, '300' as unknown as number]) {
      expect(() => createWebhookMiddleware({ webhookSecret: SECRET, toleranceSeconds })).toThrow(
        expect.objectContaining({ code: 'invalid_tolerance' }),
      );
      expect(codeOf(() => verifyStandardWebhook(body, headers, SECRET, { toleranceSeconds, now: () => NOW }))).toBe('invalid_tolerance');
    }
    // Zero is a window of exactly now, not no window.
    expect(codeOf(() => verifyStandardWebhook(body, headers, SECRET, { toleranceSeconds: 0, now: () => NOW }))).toBe('timestamp_too_old');
    expect(verifyStandardWebhook(body, signedBy(SECRET, NOW), SECRET, { toleranceSeconds: 0, now: () => NOW })).toMatchObject({
      id: 'evt_1',
    });
  });
});
