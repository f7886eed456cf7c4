import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../src/daemon.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { EventSignatures } from '../../src/delivery/event-signatures.js';
import { DELIVERY_HEADERS } from '../../src/domain/delivery-headers.js';
import { emitEvent } from '../../src/services/outbox.js';
import { listAttempts } from '../../src/store/delivery-attempts.js';
import { signaturesOf } from '../../src/store/event-signatures.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { setup } from '../delivery/dispatch/support.js';
import { startReceiver, type Received } from '../delivery/receiver.js';
import { startCollector } from '../tracing/collector.js';

const N = '/v1/notifications';
const W = `${N}/webhooks/settings`;
const ADMIN = `Bearer ${ADMIN_TOKEN}`;
const NAMES = DELIVERY_HEADERS.map((h) => h.name);
/** What the HTTP client adds to every request, which no attempt records. */
const TRANSPORT = new Set(['host', 'content-length', 'connection', 'keep-alive']);

/** The headers a receiver got that a delivery sends, in the order borderd sends them; anything else it got is transport. */
function sentHeaders(r: Received): Record<string, string> {
  const names = Object.keys(r.headers);
  expect(names.filter((n) => !NAMES.includes(n) && !TRANSPORT.has(n))).toEqual([]);
  return Object.fromEntries(NAMES.filter((n) => r.headers[n] !== undefined).map((n) => [n, String(r.headers[n])]));
}

interface AttemptBody {
  attempt: number;
  requestHeaders: Record<string, string>;
  requestHeadersSource: string;
}

type Get = (path: string, auth: string) => Promise<{ status: number; body: { attempts: AttemptBody[] } }>;

/** The delivery's attempts as the tenant and the operator see them: the same, and each exactly what the receiver got. */
async function expectViewsShow(
  get: Get,
  orgId: string,
  auth: string,
  deliveryId: string,
  received: readonly Received[],
): Promise<AttemptBody[]> {
  const tenant = await get(`${N}/deliveries/${deliveryId}`, auth);
  const operator = await get(`/admin/v1/organizations/${orgId}/notifications/deliveries/${deliveryId}`, ADMIN);
  expect(tenant.status).toBe(200);
  expect(operator.status).toBe(200);
  expect(operator.body.attempts).toEqual(tenant.body.attempts);
  const attempts = tenant.body.attempts;
  expect(attempts).toHaveLength(received.length);
  attempts.forEach((a, i) => {
    const sent = sentHeaders(received[i]!);
    expect(a.requestHeadersSource).toBe('sent');
    expect(a.requestHeaders).toEqual(sent);
    expect(Object.keys(a.requestHeaders)).toEqual(Object.keys(sent));
    expect(a.requestHeaders['x-delivery-attempt']).toBe(String(i + 1));
  });
  return attempts;
}

async function headersSetup(overrides: Record<string, unknown> = {}) {
  const s = await setup(overrides);
  const get: Get = async (path, auth) => await s.http.get(path).set('authorization', auth);
  /** Emits one event and sends it once; its delivery's id. */
  const deliverOnce = async (): Promise<string> => {
    const { event } = await emitEvent(s.ctx, s.org.org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await s.dispatcher.runOnce()).toBe(1);
    const deliveries = await s.http.get(`${W}/${s.webhookId}/deliveries`).set('authorization', s.org.auth);
    return (deliveries.body.data as { id: string; eventId: string }[]).find((d) => d.eventId === event.id)!.id;
  };
  /** Sends the delivery again now (the tenant's retry). */
  const retry = async (deliveryId: string) => {
    expect((await s.http.post(`${N}/deliveries/${deliveryId}/retry`).set('authorization', s.org.auth)).status).toBe(202);
    expect(await s.dispatcher.runOnce()).toBe(1);
  };
  const views = (deliveryId: string) => expectViewsShow(get, s.org.org.id, s.org.auth, deliveryId, s.receiver.received);
  return { ...s, deliverOnce, retry, views };
}

describe('the attempts view shows exactly the headers that went out', () => {
  it('for a webhook with a secret, across a retry: each attempt its own number, timestamp and signatures', async () => {
    const s = await headersSetup();
    s.receiver.setResponder((_r, res) => res.writeHead(500).end());
    const id = await s.deliverOnce();
    s.receiver.setResponder((_r, res) => res.end('ok'));
    s.ctx.clock.advance(2_000);
    await s.retry(id);
    const [first, second] = await s.views(id);
    expect(Object.keys(first!.requestHeaders)).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
    expect(second!.requestHeaders['webhook-timestamp']).not.toBe(first!.requestHeaders['webhook-timestamp']);
  });

  it('for a webhook without a secret: no Standard Webhooks headers', async () => {
    const s = await headersSetup();
    await s.ctx.db.run('DELETE FROM webhook_secrets');
    const [a] = await s.views(await s.deliverOnce());
    expect(Object.keys(a!.requestHeaders).filter((n) => n.startsWith('webhook-'))).toEqual([]);
  });

  it('during a secret rotation window: two v1 entries', async () => {
    const s = await headersSetup({ 'webhooks.rotationOverlapSeconds': 600 });
    expect((await s.http.post(`${W}/${s.webhookId}/secret/rotate`).set('authorization', s.org.auth)).status).toBe(201);
    const [a] = await s.views(await s.deliverOnce());
    expect(a!.requestHeaders['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  });

  it('for a webhook that chose v1a: its Ed25519 entry after the v1 one', async () => {
    const s = await headersSetup();
    const schemes = ['x-signature', 'webhook-signature:v1', 'webhook-signature:v1a'];
    const patched = await s.http
      .patch(`${W}/${s.webhookId}`)
      .set('authorization', s.org.auth)
      .send({ url: s.receiver.url, signatureSchemes: schemes });
    expect(patched.status).toBe(200);
    const [a] = await s.views(await s.deliverOnce());
    expect(a!.requestHeaders['webhook-signature']).toMatch(/^v1,\S+ v1a,\S+$/);
  });

  it("across a signing-key rotation between two attempts: each attempt's own key id and signature", async () => {
    const s = await headersSetup();
    s.receiver.setResponder((_r, res) => res.writeHead(503).end());
    const id = await s.deliverOnce();
    expect((await s.http.post(`${W}/public-key`).set('authorization', s.org.auth)).status).toBe(201);
    s.receiver.setResponder((_r, res) => res.end('ok'));
    await s.retry(id);
    const [first, second] = await s.views(id);
    expect(second!.requestHeaders['x-signature-key-id']).not.toBe(first!.requestHeaders['x-signature-key-id']);
    expect(second!.requestHeaders['x-signature']).not.toBe(first!.requestHeaders['x-signature']);
  });

  it('stores only what cannot be derived: no x-signature, no event id, nothing but the values made at the send', async () => {
    const s = await headersSetup();
    const id = await s.deliverOnce();
    const got = s.receiver.received[0]!.headers;
    const [row] = await listAttempts(s.ctx.db, id);
    const stored = row!.requestHeaders!;
    expect(stored).not.toContain(String(got['x-signature']));
    expect(stored).not.toContain(String(got['x-event-id']));
    expect(JSON.parse(stored)).toEqual({
      'user-agent': got['user-agent'],
      'webhook-timestamp': got['webhook-timestamp'],
      'webhook-signature': got['webhook-signature'],
    });
    expect(row!.keyId).toBe(got['x-signature-key-id']);
  });

  it('reads a row that stored the whole request as it was stored, and one that stored none as rebuilt', async () => {
    const s = await headersSetup();
    const id = await s.deliverOnce();
    const got = s.receiver.received[0]!;
    // An older borderd's row: every header, a user-agent this version does not send, and no signature row left to derive from.
    const whole = { ...sentHeaders(got), 'user-agent': 'borderd/0.9.0' };
    await s.ctx.db.run('UPDATE delivery_attempts SET request_headers = ? WHERE delivery_id = ?', [JSON.stringify(whole), id]);
    await s.ctx.db.run('DELETE FROM event_signatures');
    const [old] = (await s.http.get(`${N}/deliveries/${id}`).set('authorization', s.org.auth)).body.attempts as AttemptBody[];
    expect(old!.requestHeadersSource).toBe('sent');
    expect(old!.requestHeaders).toEqual(whole);
    expect(Object.keys(old!.requestHeaders)).toEqual(Object.keys(whole));

    await s.ctx.db.run('UPDATE delivery_attempts SET request_headers = NULL WHERE delivery_id = ?', [id]);
    const [none] = (await s.http.get(`${N}/deliveries/${id}`).set('authorization', s.org.auth)).body.attempts as AttemptBody[];
    expect(none!.requestHeadersSource).toBe('rebuilt');
    // Its signature is no longer stored: left out, not guessed; its Standard Webhooks headers were never known.
    const {
      'x-signature': _signature,
      'webhook-id': _id,
      'webhook-timestamp': _ts,
      'webhook-signature': _sig,
      ...known
    } = sentHeaders(got);
    expect(none!.requestHeaders).toEqual(known);
  });

  it('stores the signature of every recorded attempt, even past the bound of signatures waiting to be stored', async () => {
    const s = await headersSetup();
    // A process whose list of unstored signatures is full: nothing it makes is listed.
    const signatures = new EventSignatures(s.ctx, { unstoredSize: 0 });
    const dispatcher = new Dispatcher(s.ctx, { random: () => 0.5, signatures });
    const { event } = await emitEvent(s.ctx, s.org.org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await dispatcher.runOnce()).toBe(1);
    expect(signatures.unstored).toBe(0);
    const got = s.receiver.received[0]!.headers;
    expect(await signaturesOf(s.ctx.db, [event.id])).toEqual([
      { eventId: event.id, keyId: got['x-signature-key-id'], signature: got['x-signature'] },
    ]);
    const deliveries = await s.http.get(`${W}/${s.webhookId}/deliveries`).set('authorization', s.org.auth);
    await s.views(deliveries.body.data[0].id as string);
  });

  it('from a running daemon with tracing on: traceparent too', async () => {
    const collector = await startCollector();
    const receiver = await startReceiver();
    const ctx = await makeContext({ 'server.port': 0, 'admin.token': ADMIN_TOKEN, 'tracing.otlpEndpoint': collector.url });
    const org = await makeOrg(ctx, makeApi(ctx).tokens);
    const daemon = await startDaemon(ctx);
    try {
      const get: Get = async (path, auth) => {
        const res = await fetch(`${daemon.url}${path}`, { headers: { authorization: auth } });
        return { status: res.status, body: (await res.json()) as { attempts: AttemptBody[] } };
      };
      const call = async (method: string, path: string, body: unknown) =>
        await fetch(`${daemon.url}${path}`, {
          method,
          headers: { authorization: org.auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const hook = await call('POST', W, { url: receiver.url });
      expect(hook.status).toBe(201);
      const webhookId = ((await hook.json()) as { id: string }).id;
      // The attempt is recorded with its batch, a little after the answer: its signal says when.
      const attempted = ctx.signals.deliveryAttempted.next();
      const emitted = await fetch(`${daemon.url}/admin/v1/events`, {
        method: 'POST',
        headers: { authorization: ADMIN, 'content-type': 'application/json' },
        body: JSON.stringify({ orgId: org.org.id, type: 'Transaction_Created' }),
      });
      expect(emitted.status).toBe(201);
      await attempted;
      expect(receiver.received[0]!.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const page = await fetch(`${daemon.url}${W}/${webhookId}/deliveries`, { headers: { authorization: org.auth } });
      const deliveryId = ((await page.json()) as { data: { id: string }[] }).data[0]!.id;
      const [a] = await expectViewsShow(get, org.org.id, org.auth, deliveryId, receiver.received);
      expect(a!.requestHeaders.traceparent).toBe(receiver.received[0]!.headers.traceparent);
    } finally {
      await daemon.close();
      await collector.close();
    }
  }, 30_000);
});
