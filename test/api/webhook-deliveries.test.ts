import { describe, expect, it } from 'vitest';
import { addSyntheticEvents } from '../../bench/synthetic-rows.js';
import { emitEvent } from '../../src/services/outbox.js';
import { MAX_REPLAY_EVENTS } from '../../src/services/webhook-deliveries.js';
import { ADMIN_TOKEN, makeOrg } from '../support/context.js';
import { setup } from '../delivery/dispatch/support.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { isTestEvent } from '../../src/verify/index.js';

const N = '/v1/notifications';
const W = `${N}/webhooks/settings`;

describe('a tenant reads and acts on its own outbox', () => {
  it('sees a failed delivery with its attempt, retries it now and sees it delivered; health follows', async () => {
    const { ctx, http, org, receiver, webhookId, dispatcher } = await setup();
    receiver.setResponder((_r, res) => res.writeHead(500).end('down for maintenance'));
    const { event } = await emitEvent(ctx, org.org.id, 'Transaction_Created', { status: 'Submitted' });
    await dispatcher.runOnce();

    const failed = await http.get(`${W}/${webhookId}/deliveries`).set('authorization', org.auth);
    expect(failed.status).toBe(200);
    expect(failed.body.hasMore).toBe(false);
    expect(failed.body.data).toHaveLength(1);
    const [d] = failed.body.data;
    expect(d).toMatchObject({
      eventId: event.id,
      eventType: 'Transaction_Created',
      state: 'pending',
      attempts: 1,
      lastStatus: 500,
      inFlight: false,
    });

    const detail = await http.get(`${N}/deliveries/${d.id}`).set('authorization', org.auth);
    expect(detail.status).toBe(200);
    expect(detail.body.attempts).toHaveLength(1);
    const [a] = detail.body.attempts;
    expect(a).toMatchObject({ attempt: 1, statusCode: 500, error: null, responseBody: 'down for maintenance' });
    // The headers shown are the ones the receiver got, every one of them, the Standard Webhooks ones included.
    const got = receiver.received[0]!.headers;
    const sent = Object.fromEntries(Object.keys(a.requestHeaders).map((k) => [k, got[k]]));
    expect(a.requestHeaders).toEqual(sent);
    const ours = Object.keys(got).filter(
      (k) => k.startsWith('x-') || k.startsWith('webhook-') || k === 'traceparent' || k === 'user-agent' || k === 'content-type',
    );
    expect(Object.keys(a.requestHeaders).sort()).toEqual(ours.sort());
    expect(Object.keys(a.requestHeaders)).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
    expect(a.requestHeadersSource).toBe('sent');

    const sick = await http.get(`${W}/${webhookId}/health`).set('authorization', org.auth);
    expect(sick.body).toMatchObject({ enabled: true, failuresInARow: 1, pending: 1, lastSuccessAt: null });
    expect(sick.body.lastHour).toMatchObject({ attempts: 1, succeeded: 0, successRate: 0 });
    expect(sick.body.nextAttemptAt > new Date(ctx.clock.now()).toISOString()).toBe(true);

    receiver.setResponder((_r, res) => res.end('ok'));
    const retried = await http.post(`${N}/deliveries/${d.id}/retry`).set('authorization', org.auth);
    expect(retried.status).toBe(202);
    expect(retried.body.nextAttemptAt).toBe(new Date(ctx.clock.now()).toISOString());
    await dispatcher.runOnce();
    const done = await http.get(`${N}/deliveries/${d.id}`).set('authorization', org.auth);
    expect(done.body.delivery).toMatchObject({ state: 'delivered', attempts: 2, nextAttemptAt: null });
    expect(done.body.attempts.map((x: { statusCode: number }) => x.statusCode)).toEqual([500, 200]);

    const well = await http.get(`${W}/${webhookId}/health`).set('authorization', org.auth);
    expect(well.body).toMatchObject({ failuresInARow: 0, pending: 0, nextAttemptAt: null });
    expect(well.body.lastSuccessAt).not.toBeNull();
    expect(well.body.lastDay).toMatchObject({ attempts: 2, succeeded: 1, successRate: 0.5 });
    expect(well.body.hourly.reduce((n: number, h: { attempts: number }) => n + h.attempts, 0)).toBe(2);

    // A delivered row retried starts again; retrying it twice before it is sent queues it once.
    expect((await http.post(`${N}/deliveries/${d.id}/retry`).set('authorization', org.auth)).status).toBe(202);
    expect((await http.post(`${N}/deliveries/${d.id}/retry`).set('authorization', org.auth)).status).toBe(202);
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(3);
  });

  it('shows an attempt recorded before its headers were kept as rebuilt, with what can be known', async () => {
    const { ctx, http, org, receiver, webhookId, dispatcher } = await setup();
    await emitEvent(ctx, org.org.id, 'Transaction_Created', { status: 'Submitted' });
    await dispatcher.runOnce();
    const [d] = (await http.get(`${W}/${webhookId}/deliveries`).set('authorization', org.auth)).body.data;
    // An attempt row as recorded before request_headers existed.
    await ctx.db.run('UPDATE delivery_attempts SET request_headers = NULL WHERE delivery_id = ?', [d.id]);
    const [a] = (await http.get(`${N}/deliveries/${d.id}`).set('authorization', org.auth)).body.attempts;
    expect(a.requestHeadersSource).toBe('rebuilt');
    const got = receiver.received[0]!.headers;
    expect(a.requestHeaders).toEqual({
      'content-type': got['content-type'],
      'user-agent': got['user-agent'],
      'x-signature': got['x-signature'],
      'x-signature-key-id': got['x-signature-key-id'],
      'x-event-id': got['x-event-id'],
      'x-event-type': got['x-event-type'],
      'x-delivery-attempt': '1',
    });
  });

  it('health says an endpoint is slow exactly when the dispatcher does: its last attempt took delivery.slowAfterMs or longer', async () => {
    const { ctx, http, org, receiver, webhookId, dispatcher } = await setup({ 'delivery.slowAfterMs': 200 });
    const health = async () => (await http.get(`${W}/${webhookId}/health`).set('authorization', org.auth)).body;
    const sendOne = async () => {
      ctx.clock.advance(1000);
      await emitEvent(ctx, org.org.id, 'Transaction_Created');
      expect(await dispatcher.runOnce()).toBe(1);
    };
    await sendOne();
    expect(await health()).toMatchObject({ slow: false, lastHour: { attempts: 1, succeeded: 1 } });
    expect(dispatcher.isSlow(webhookId)).toBe(false);
    // One answer that takes 300 ms after a quick one: the hour's mean stays under 200 ms, the last send is slow.
    receiver.setResponder((_r, res) => void setTimeout(() => res.end('ok'), 300));
    await sendOne();
    const slow = await health();
    expect(slow.lastHour.meanLatencyMs).toBeLessThan(200);
    expect(dispatcher.isSlow(webhookId)).toBe(true);
    expect(slow.slow).toBe(true);
    const list = await http.get(`${N}/webhooks/health`).set('authorization', org.auth);
    expect(list.body.data).toMatchObject([{ webhook: { id: webhookId }, health: { slow: true } }]);
    // A quick answer again: quick for both.
    receiver.setResponder((_r, res) => res.end('ok'));
    await sendOne();
    expect(dispatcher.isSlow(webhookId)).toBe(false);
    expect((await health()).slow).toBe(false);
  });

  it('refuses a retry while the attempt is in flight, and nothing is sent twice', async () => {
    const { ctx, http, org, receiver, webhookId } = await setup();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    receiver.setResponder((_r, res) => void held.then(() => res.end('ok')));
    await emitEvent(ctx, org.org.id, 'Transaction_Created', {});
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      await receiver.waitFor(1);
      const [d] = (await http.get(`${W}/${webhookId}/deliveries`).set('authorization', org.auth)).body.data;
      expect(d.inFlight).toBe(true);
      const busy = await http.post(`${N}/deliveries/${d.id}/retry`).set('authorization', org.auth);
      expect([busy.status, busy.body.code]).toEqual([409, 'delivery_in_flight']);
    } finally {
      release();
      await worker.stop();
    }
    expect(receiver.received).toHaveLength(1);
  });

  it('pages deliveries and events newest first with filters and cursors; bad filters and foreign cursors are 400', async () => {
    const { ctx, http, tokens, org, webhookId } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await emitEvent(ctx, org.org.id, i % 2 ? 'Transaction_Updated' : 'Transaction_Created', {})).event.id);
      ctx.clock.advance(1000);
    }
    const first = await http.get(`${W}/${webhookId}/deliveries?limit=2`).set('authorization', org.auth);
    expect(first.body.data.map((d: { eventId: string }) => d.eventId)).toEqual([ids[4], ids[3]]);
    expect(first.body.hasMore).toBe(true);
    const next = await http
      .get(`${W}/${webhookId}/deliveries?limit=2&startingAfter=${first.body.data[1].id}`)
      .set('authorization', org.auth);
    expect(next.body.data.map((d: { eventId: string }) => d.eventId)).toEqual([ids[2], ids[1]]);
    const updated = await http.get(`${W}/${webhookId}/deliveries?eventType=Transaction_Updated`).set('authorization', org.auth);
    expect(updated.body.data.map((d: { eventId: string }) => d.eventId)).toEqual([ids[3], ids[1]]);
    const third = new Date(Date.parse(first.body.data[0].createdAt) - 2000).toISOString();
    const ranged = await http.get(`${N}/events?since=${third}&until=${first.body.data[0].createdAt}`).set('authorization', org.auth);
    expect(ranged.body.data.map((e: { id: string }) => e.id)).toEqual([ids[3], ids[2]]);
    expect(ranged.body.data[0].deliveries).toEqual([
      expect.objectContaining({ webhookId, state: 'pending', attempts: 0, lastStatus: null }),
    ]);
    const typed = await http.get(`${N}/events?type=Transaction_Created&limit=1&startingAfter=${ids[4]}`).set('authorization', org.auth);
    expect(typed.body).toMatchObject({ data: [{ id: ids[2], type: 'Transaction_Created' }], hasMore: true });

    for (const [path, field] of [
      [`${W}/${webhookId}/deliveries?colour=red`, 'query'],
      [`${W}/${webhookId}/deliveries?state=lost`, 'query.state'],
      [`${N}/events?type=Nope`, 'query.type'],
      [`${N}/events?since=yesterday`, 'query.since'],
      [`${N}/events?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z`, 'query.until'],
    ] as const) {
      const res = await http.get(path).set('authorization', org.auth);
      expect(res.status, path).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    // Another organization's ids as cursors: a 400, never its rows.
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const theirs = (await http.post(W).set('authorization', other.auth).send({ url: 'http://127.0.0.1:9/x' })).body.id as string;
    const theirEvent = (await emitEvent(ctx, other.org.id, 'Transaction_Created', {})).event.id;
    const theirDelivery = (await http.get(`${W}/${theirs}/deliveries`).set('authorization', other.auth)).body.data[0].id as string;
    const foreign = await http.get(`${W}/${webhookId}/deliveries?startingAfter=${theirDelivery}`).set('authorization', org.auth);
    expect([foreign.status, foreign.body.code]).toEqual([400, 'invalid_cursor']);
    const foreignEvent = await http.get(`${N}/events?startingAfter=${theirEvent}`).set('authorization', org.auth);
    expect([foreignEvent.status, foreignEvent.body.code]).toEqual([400, 'invalid_cursor']);
  });

  it("answers another organization's webhook and delivery ids with 404 everywhere", async () => {
    const { ctx, http, tokens, org, webhookId } = await setup();
    await emitEvent(ctx, org.org.id, 'Transaction_Created', {});
    const [d] = (await http.get(`${W}/${webhookId}/deliveries`).set('authorization', org.auth)).body.data;
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    for (const res of [
      await http.get(`${W}/${webhookId}/health`).set('authorization', other.auth),
      await http.get(`${W}/${webhookId}/deliveries`).set('authorization', other.auth),
      await http.post(`${W}/${webhookId}/replay`).set('authorization', other.auth).send({ since: '2000-01-01T00:00:00Z' }),
      await http.post(`${W}/${webhookId}/test`).set('authorization', other.auth).send({ type: 'Transaction_Created' }),
      await http.get(`${N}/deliveries/${d.id}`).set('authorization', other.auth),
      await http.post(`${N}/deliveries/${d.id}/retry`).set('authorization', other.auth),
    ])
      expect([res.status, res.body.code]).toEqual([404, 'not_found']);
    expect((await http.get(`${N}/events`).set('authorization', other.auth)).body.data).toEqual([]);
    expect((await http.get(`${N}/webhooks/health`).set('authorization', other.auth)).body.data).toEqual([]);
  });

  it('replays a range or a list idempotently, bounded, with the CLI rules', async () => {
    const { ctx, http, org, receiver, webhookId, dispatcher } = await setup();
    const a = (await emitEvent(ctx, org.org.id, 'Transaction_Created', {})).event;
    ctx.clock.advance(1000);
    const b = (await emitEvent(ctx, org.org.id, 'Transaction_Updated', {})).event;
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(2);

    const range = await http.post(`${W}/${webhookId}/replay`).set('authorization', org.auth).send({ since: b.createdAt });
    expect(range.body).toEqual({ events: 1, requeued: 1 });
    // Asked again before it is sent: nothing queued twice.
    expect((await http.post(`${W}/${webhookId}/replay`).set('authorization', org.auth).send({ since: b.createdAt })).body).toEqual({
      events: 1,
      requeued: 0,
    });
    const list = await http
      .post(`${W}/${webhookId}/replay`)
      .set('authorization', org.auth)
      .send({ eventIds: [a.id, b.id] });
    expect(list.body).toEqual({ events: 2, requeued: 1 });
    await dispatcher.runOnce();
    expect(
      receiver.received
        .map((r) => r.headers['x-event-id'])
        .slice(2)
        .sort(),
    ).toEqual([a.id, b.id].sort());

    for (const [body, code] of [
      [{}, 'invalid_replay'],
      [{ eventIds: [a.id], since: a.createdAt }, 'invalid_replay'],
      [{ eventIds: ['evt_nope'] }, 'unknown_event'],
      [{ since: 'soon' }, 'invalid_time'],
      [{ since: b.createdAt, until: a.createdAt }, 'invalid_time_range'],
    ] as const) {
      const res = await http.post(`${W}/${webhookId}/replay`).set('authorization', org.auth).send(body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([400, code]);
    }
    await http.patch(`${W}/${webhookId}`).set('authorization', org.auth).send({ url: receiver.url, enabled: false });
    const off = await http.post(`${W}/${webhookId}/replay`).set('authorization', org.auth).send({ since: a.createdAt });
    expect([off.status, off.body.code]).toEqual([409, 'webhook_disabled']);
  });

  it('refuses a replay over the bound before queuing anything', async () => {
    const { ctx, http, org, webhookId } = await setup();
    const first = (await emitEvent(ctx, org.org.id, 'Transaction_Created', {})).event;
    // Rows of the events table are enough to fill the range: the bound is checked on the count.
    await addSyntheticEvents(ctx.db, {
      prefix: first.id,
      orgId: org.org.id,
      count: MAX_REPLAY_EVENTS,
      at: first.createdAt,
      type: 'Transaction_Created',
    });
    const before = await ctx.db.value("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'");
    const res = await http.post(`${W}/${webhookId}/replay`).set('authorization', org.auth).send({ since: first.createdAt });
    expect([res.status, res.body.code]).toEqual([400, 'replay_too_large']);
    expect(await ctx.db.value("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'")).toEqual(before);
  });

  it('sends a test event to one webhook and answers with its attempt', async () => {
    const { ctx, http, org, receiver, webhookId } = await setup();
    const other = (await http.post(W).set('authorization', org.auth).send({ url: 'http://127.0.0.1:9/other' })).body.id as string;
    receiver.setResponder((_r, res) => res.writeHead(202).end('thanks'));
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      const res = await http
        .post(`${W}/${webhookId}/test`)
        .set('authorization', org.auth)
        .send({ type: 'VirtualAccount_Created', data: { note: 'hello' } });
      expect(res.status).toBe(200);
      expect(res.body.attempt).toMatchObject({ attempt: 1, statusCode: 202, responseBody: 'thanks' });
      expect(res.body.delivery).toMatchObject({ webhookId, state: 'delivered' });
      const sent = JSON.parse(receiver.received[0]!.body.toString());
      expect(sent).toMatchObject({
        id: res.body.event.id,
        type: 'test.VirtualAccount_Created',
        data: { id: expect.stringMatching(/^vac_/), synthetic: true, testData: { note: 'hello' } },
      });
      expect(receiver.received[0]!.headers['x-event-type']).toBe('test.VirtualAccount_Created');
    } finally {
      await worker.stop();
    }
    // The other webhook got nothing queued for it.
    expect((await http.get(`${W}/${other}/deliveries`).set('authorization', org.auth)).body.data).toEqual([]);
    const bad = await http.post(`${W}/${webhookId}/test`).set('authorization', org.auth).send({ type: 'Nope' });
    expect([bad.status, bad.body.errors[0].path]).toEqual([400, 'body.type']);
  });

  it("keeps a test event's identity fields borderd's own and marks it a test in the signed body", async () => {
    const { ctx, http, org, receiver, webhookId } = await setup();
    const real = (await emitEvent(ctx, org.org.id, 'Transaction_Updated', { status: 'Submitted' })).event;
    // An attacker's try: a signed Transaction_Updated naming a real transaction as Completed.
    const forged = { id: real.data.id, status: 'Completed', amount: '999999.00', createdAt: '2020-01-01T00:00:00.000Z', synthetic: false };
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      const res = await http
        .post(`${W}/${webhookId}/test`)
        .set('authorization', org.auth)
        .send({ type: 'Transaction_Updated', data: forged });
      expect(res.status).toBe(200);
      expect(res.body.event.type).toBe('test.Transaction_Updated');
      await receiver.waitFor(2);
    } finally {
      await worker.stop();
    }
    const bodies = receiver.received.map((r) => JSON.parse(r.body.toString()));
    const test = bodies.find((b) => b.type !== 'Transaction_Updated')!;
    expect(test.type).toBe('test.Transaction_Updated');
    expect(test.data).toEqual({
      id: expect.stringMatching(/^txn_/),
      createdAt: test.createdAt,
      updatedAt: test.createdAt,
      synthetic: true,
      testData: forged,
    });
    expect(test.data.id).not.toBe(real.data.id);
    // The lists filter by the test family like any type.
    const listed = await http.get(`${N}/events?type=test.Transaction_Updated`).set('authorization', org.auth);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([test.id]);
    const deliveries = await http.get(`${W}/${webhookId}/deliveries?eventType=test.Transaction_Updated`).set('authorization', org.auth);
    expect(deliveries.body.data.map((d: { eventId: string }) => d.eventId)).toEqual([test.id]);
    expect(test.data).not.toHaveProperty('status');
    // One check on the verified body tells them apart.
    expect(bodies.map((b) => [b.type, isTestEvent(b)])).toEqual(
      expect.arrayContaining([
        ['Transaction_Updated', false],
        ['test.Transaction_Updated', true],
      ]),
    );
  });

  it('refuses a test event whose data is over webhooks.testEventMaxDataBytes with a 413, writing nothing', async () => {
    const { ctx, http, org, webhookId } = await setup();
    const events = () => ctx.db.value('SELECT COUNT(*) FROM events');
    const before = await events();
    const big = { note: 'x'.repeat(16 * 1024) };
    const res = await http.post(`${W}/${webhookId}/test`).set('authorization', org.auth).send({ type: 'Transaction_Created', data: big });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'test_event_too_large', errors: [{ path: 'body.data' }] });
    expect(res.body.detail).toContain('16384');
    expect(await events()).toEqual(before);
    // The operator's admin route has the same bound.
    const admin = await http
      .post(`/admin/v1/organizations/${org.org.id}/notifications/webhooks/settings/${webhookId}/test`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ type: 'Transaction_Created', data: big });
    expect([admin.status, admin.body.code]).toEqual([413, 'test_event_too_large']);
    expect(await events()).toEqual(before);
  });

  it('gives the operator the same routes for any organization, on the admin token only', async () => {
    const { ctx, http, org, webhookId } = await setup();
    await emitEvent(ctx, org.org.id, 'Transaction_Created', {});
    const admin = `Bearer ${ADMIN_TOKEN}`;
    const orgs = await http.get('/admin/v1/organizations').set('authorization', admin);
    expect(orgs.body.data).toEqual([{ id: org.org.id, name: 'Acme' }]);
    const P = `/admin/v1/organizations/${org.org.id}/notifications`;
    const list = await http.get(`${P}/webhooks/health`).set('authorization', admin);
    expect(list.body.data.map((w: { webhook: { id: string } }) => w.webhook.id)).toEqual([webhookId]);
    const deliveries = await http.get(`${P}/webhooks/settings/${webhookId}/deliveries`).set('authorization', admin);
    expect(deliveries.body.data).toHaveLength(1);
    expect((await http.get(`${P}/events`).set('authorization', admin)).body.data).toHaveLength(1);
    expect((await http.get(`/admin/v1/organizations/org_nope/notifications/events`).set('authorization', admin)).status).toBe(404);
    // A tenant's token is no admin token.
    expect((await http.get(`${P}/events`).set('authorization', org.auth)).status).toBe(401);
  });
});
