/**
 * The budgets of an organization's own replays and test events, through the API on both engines:
 * a 429 problem with Retry-After past them, nothing queued or written, the operator's admin API
 * exempt (services/outbox-budgets.ts; one replay at a time per webhook is tested there).
 */
import { describe, expect, it } from 'vitest';
import { emitEvent } from '../../src/services/outbox.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { setup } from '../delivery/dispatch/support.js';

const W = '/v1/notifications/webhooks/settings';
const admin = (orgId: string) => `/admin/v1/organizations/${orgId}/notifications/webhooks/settings`;
const ADMIN = `Bearer ${ADMIN_TOKEN}`;

describe("an organization's replay and test-event budgets", () => {
  it('refuses replays past webhooks.replayEventsPerHour with a 429 and Retry-After, queuing nothing; the operator is exempt', async () => {
    const { ctx, http, org, webhookId, dispatcher } = await setup({ 'webhooks.replayEventsPerHour': 2 });
    const [e1, e2, e3] = [
      (await emitEvent(ctx, org.org.id, 'Transaction_Created', {})).event,
      (await emitEvent(ctx, org.org.id, 'Transaction_Created', {})).event,
      (await emitEvent(ctx, org.org.id, 'Transaction_Created', {})).event,
    ];
    await dispatcher.runOnce();
    const pending = () => ctx.db.value("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'");
    const replay = (body: object, auth = org.auth, base = W) =>
      http.post(`${base}/${webhookId}/replay`).set('authorization', auth).send(body);
    expect(await pending()).toEqual(0);

    // A range of more than an hour's budget can never be queued: a 400, not a wait.
    const tooLarge = await replay({ since: e1!.createdAt });
    expect([tooLarge.status, tooLarge.body.code]).toEqual([400, 'replay_too_large']);
    expect(await pending()).toEqual(0);

    expect((await replay({ eventIds: [e1!.id, e2!.id] })).body).toEqual({ events: 2, requeued: 2 });
    await dispatcher.runOnce();
    const refused = await replay({ eventIds: [e3!.id] });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'replay_budget_exhausted' });
    expect(refused.body.detail).toContain('webhooks.replayEventsPerHour');
    // 2 an hour: one event refills every 30 minutes.
    expect(refused.headers['retry-after']).toBe('1800');
    expect(await pending()).toEqual(0);

    // The operator's admin API is not counted.
    const byOperator = await replay({ eventIds: [e1!.id] }, ADMIN, admin(org.org.id));
    expect([byOperator.status, byOperator.body]).toEqual([200, { events: 1, requeued: 1 }]);

    ctx.clock.advance(1_800_000);
    // e1 is pending already: named, not queued, its place given back.
    expect((await replay({ eventIds: [e1!.id] })).body).toEqual({ events: 1, requeued: 0 });
    expect((await replay({ eventIds: [e3!.id] })).body).toEqual({ events: 1, requeued: 1 });
    expect((await replay({ eventIds: [e2!.id] })).status).toBe(429);
  });

  it('refuses test events past webhooks.testEventsPerMinute with a 429 and Retry-After, writing nothing; the operator is exempt', async () => {
    const { ctx, http, tokens, org, receiver, webhookId } = await setup({ 'webhooks.testEventsPerMinute': 2 });
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const otherHook = (await http.post(W).set('authorization', other.auth).send({ url: receiver.url })).body.id as string;
    const events = () => ctx.db.value('SELECT COUNT(*) FROM events');
    const test = (auth = org.auth, base = W, id = webhookId) =>
      http.post(`${base}/${id}/test`).set('authorization', auth).send({ type: 'Transaction_Created' });
    const worker = new Dispatcher(ctx, { random: () => 0.5 });
    worker.start();
    try {
      expect((await test()).status).toBe(200);
      expect((await test()).status).toBe(200);
      const before = await events();
      const refused = await test();
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ status: 429, code: 'test_event_budget_exhausted' });
      expect(refused.headers['retry-after']).toBe('30');
      expect(await events()).toEqual(before);

      expect((await test(ADMIN, admin(org.org.id))).status).toBe(200);
      expect((await test(other.auth, W, otherHook)).status).toBe(200);
      ctx.clock.advance(30_000);
      expect((await test()).status).toBe(200);
    } finally {
      await worker.stop();
    }
  });

  // max_page_count makes SQLite refuse to grow the file with its real SQLITE_FULL, as a full disk does.
  it.skipIf(onPostgres)('charges nothing for a test event refused 503 storage_full', async () => {
    const ctx = await makeContext({ 'webhooks.testEventsPerMinute': 3 });
    const { http, tokens } = makeApi(ctx);
    const org = await makeOrg(ctx, tokens);
    const hook = (await http.post(W).set('authorization', org.auth).send({ url: 'http://127.0.0.1:9/a' })).body.id as string;
    // With a key the answer is the queued delivery at once: no dispatcher runs here.
    const test = (key: string) =>
      http.post(`${W}/${hook}/test`).set('authorization', org.auth).set('idempotency-key', key).send({ type: 'Transaction_Created' });
    const pages = Number(await ctx.db.value('PRAGMA page_count'));
    await ctx.db.value(`PRAGMA max_page_count = ${pages}`);
    // Filled to its last page by the operator's keyed test events (outside the budget), until two in a row are refused.
    for (let i = 0, refused = 0; i < 5000 && refused < 2; i++) {
      const res = await http
        .post(`${admin(org.org.id)}/${hook}/test`)
        .set('authorization', ADMIN)
        .set('idempotency-key', `fill-${i}`)
        .send({ type: 'Transaction_Created' });
      refused = res.status === 503 ? refused + 1 : 0;
    }
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await test(`full-${i}`)).status);
    // More refusals than the budget holds, and none of them a 429: the refused ones were given back.
    expect(statuses).toEqual([503, 503, 503, 503, 503, 503]);
    await ctx.db.value('PRAGMA max_page_count = 1073741823');
    for (let i = 0; i < 3; i++) expect((await test(`room-${i}`)).status).toBe(202);
    expect((await test('past-the-budget')).body).toMatchObject({ status: 429, code: 'test_event_budget_exhausted' });
  });
});
