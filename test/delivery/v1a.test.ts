import { createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import { makeApi, makeContext, makeOrg } from '../support/context.js';
import { startReceiver, type Received } from './receiver.js';

const BASE = '/v1/notifications/webhooks/settings';
const ALL = ['x-signature', 'webhook-signature:v1', 'webhook-signature:v1a'];

afterEach(() => vi.useRealTimers());

async function setup(schemes?: string[]) {
  const ctx = await makeContext({ 'delivery.retryScheduleSeconds': [0, 5, 60], 'delivery.jitter': 0 });
  const { http, tokens } = makeApi(ctx);
  const org = await makeOrg(ctx, tokens);
  const receiver = await startReceiver();
  const created = await http
    .post(BASE)
    .set('authorization', org.auth)
    .send({ url: receiver.url, ...(schemes ? { signatureSchemes: schemes } : {}) });
  expect(created.status).toBe(201);
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  const deliver = async () => {
    await emitEvent(ctx, org.org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await dispatcher.runOnce()).toBe(1);
    return receiver.received.at(-1)!;
  };
  return { ctx, http, org, deliver, created: created.body as { id: string; secret: string; signatureSchemes: string[] } };
}

/** The delivery's v1a entries checked with node:crypto's own Ed25519 and the organization's published key (no code of ours). */
async function v1aVerifies(s: Awaited<ReturnType<typeof setup>>, r: Received): Promise<boolean> {
  const set = (await s.http.get(`/v1/organizations/${s.org.org.id}/jwks.json`)).body as { keys: Record<string, string>[] };
  const keys = set.keys.filter((k) => k.kty === 'OKP').map((k) => createPublicKey({ key: k, format: 'jwk' }));
  const signed = Buffer.concat([Buffer.from(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.`), r.body]);
  const entries = String(r.headers['webhook-signature'])
    .split(' ')
    .filter((e) => e.startsWith('v1a,'))
    .map((e) => Buffer.from(e.slice(4), 'base64'));
  return entries.length > 0 && entries.some((sig) => keys.some((key) => verify(null, signed, key, sig)));
}

function standardWebhooksVerifies(secret: string, r: Received, nowMs: number): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(nowMs);
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

describe('webhook-signature v1a (Ed25519), opt-in per webhook', () => {
  it('is sent beside v1 once chosen, verifies with the published Ed25519 key, and leaves v1 verifiable by the standardwebhooks package', async () => {
    const s = await setup(ALL);
    expect(s.created.signatureSchemes).toEqual(ALL);
    const r = await s.deliver();
    const entries = String(r.headers['webhook-signature']).split(' ');
    expect(entries.map((e) => e.split(',')[0])).toEqual(['v1', 'v1a']);
    expect(entries[1]).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(await v1aVerifies(s, r)).toBe(true);
    expect(standardWebhooksVerifies(s.created.secret, r, s.ctx.clock.now())).toBe(true);
    // The private half is sealed at rest: no PEM in the row.
    const row = (await s.ctx.db.get('SELECT private_enc FROM webhook_ed25519_keys')) as { private_enc: string };
    expect(row.private_enc).not.toMatch(/PRIVATE KEY/);
    expect((await s.http.get(`${BASE}/${s.created.id}`).set('authorization', s.org.auth)).body.signatureSchemes).toEqual(ALL);
  });

  it('goes alone, with webhook-id and webhook-timestamp, to a webhook that has no secret', async () => {
    const s = await setup(ALL);
    await s.ctx.db.run('DELETE FROM webhook_secrets');
    const r = await s.deliver();
    expect(String(r.headers['webhook-signature'])).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(r.headers['webhook-id']).toBe(JSON.parse(r.body.toString()).id);
    expect(await v1aVerifies(s, r)).toBe(true);
  });

  it('is off by default', async () => {
    const s = await setup();
    expect(s.created.signatureSchemes).toEqual(['x-signature', 'webhook-signature:v1']);
    expect(String((await s.deliver()).headers['webhook-signature'])).not.toMatch(/v1a,/);
  });

  it('follows the PATCHed choice on the next delivery; a PATCH without signatureSchemes keeps it', async () => {
    const receiver = await startReceiver();
    const s = await setup();
    const url = `${BASE}/${s.created.id}`;
    const patch = (body: Record<string, unknown>) =>
      s.http
        .patch(url)
        .set('authorization', s.org.auth)
        .send({ url: receiver.url, ...body });
    expect((await patch({ signatureSchemes: ALL })).status).toBe(200);
    const deliver = async () => {
      await emitEvent(s.ctx, s.org.org.id, 'Transaction_Updated', { status: 'Completed' });
      expect(await new Dispatcher(s.ctx, { random: () => 0.5 }).runOnce()).toBe(1);
      return receiver.received.at(-1)!;
    };
    const on = await deliver();
    expect(await v1aVerifies(s, on)).toBe(true);
    expect((await patch({})).body.signatureSchemes).toEqual(ALL);
    expect(await v1aVerifies(s, await deliver())).toBe(true);
    expect((await patch({ signatureSchemes: ALL.slice(0, 2) })).body.signatureSchemes).toEqual(ALL.slice(0, 2));
    expect(String((await deliver()).headers['webhook-signature'])).not.toMatch(/v1a,/);
  });

  it('refuses a list without the schemes every delivery carries, and an unknown scheme, in problem JSON naming the field', async () => {
    const s = await setup();
    const missing = await s.http
      .post(BASE)
      .set('authorization', s.org.auth)
      .send({ url: 'http://127.0.0.1:9/a', signatureSchemes: ['webhook-signature:v1a'] });
    expect(missing.status).toBe(400);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.body).toMatchObject({ code: 'signature_scheme_required', errors: [{ path: 'body.signatureSchemes' }] });
    expect(missing.body.detail).toMatch(/x-signature and webhook-signature:v1/);
    const unknown = await s.http
      .patch(`${BASE}/${s.created.id}`)
      .set('authorization', s.org.auth)
      .send({ url: 'http://127.0.0.1:9/a', signatureSchemes: ['x-signature', 'webhook-signature:v1', 'webhook-signature:v2'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].path).toBe('body.signatureSchemes.2');
    // Nothing was written by either.
    expect((await s.http.get(BASE).set('authorization', s.org.auth)).body).toHaveLength(1);
    expect((await s.http.get(`${BASE}/${s.created.id}`).set('authorization', s.org.auth)).body.url).not.toBe('http://127.0.0.1:9/a');
  });
});
