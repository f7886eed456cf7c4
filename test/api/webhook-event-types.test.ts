import { describe, expect, it } from 'vitest';
import { emitEvent } from '../../src/services/outbox.js';
import { listDeliveries } from '../../src/store/delivery-views.js';
import { makeApi, makeContext, makeOrg } from '../support/context.js';

const W = '/v1/notifications/webhooks/settings';

describe('webhook event-type filters (eventTypes)', () => {
  it('queues only the types a webhook takes: other types get no delivery row at all', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const created = await http
      .post(W)
      .set('authorization', auth)
      .send({ url: 'http://127.0.0.1:9/tx', eventTypes: ['Transaction_*'] });
    expect(created.status).toBe(201);
    expect(created.body.eventTypes).toEqual(['Transaction_*']);
    const all = (await http.post(W).set('authorization', auth).send({ url: 'http://127.0.0.1:9/all' })).body;
    expect(all.eventTypes).toEqual([]);

    const tx = (await emitEvent(ctx, org.id, 'Transaction_Created', {})).event;
    const va = (await emitEvent(ctx, org.id, 'VirtualAccount_Created', {})).event;
    const rows = await listDeliveries(ctx.db, { webhookId: created.body.id, limit: 10 });
    expect(rows.map((d) => d.eventId)).toEqual([tx.id]);
    expect((await listDeliveries(ctx.db, { webhookId: all.id, limit: 10 })).map((d) => d.eventId).sort()).toEqual([tx.id, va.id].sort());

    // A replay follows the filter too.
    const replay = await http
      .post(`${W}/${created.body.id}/replay`)
      .set('authorization', auth)
      .send({ eventIds: [tx.id, va.id] });
    expect(replay.body).toEqual({ events: 2, requeued: 0 });
    expect(await listDeliveries(ctx.db, { webhookId: created.body.id, limit: 10 })).toHaveLength(1);
  });

  it('PATCH replaces the filter when given and keeps it when absent; an empty list takes every type', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const id = (
      await http
        .post(W)
        .set('authorization', auth)
        .send({ url: 'http://127.0.0.1:9/a', eventTypes: ['VirtualAccount_Created', 'VirtualAccount_Created'] })
    ).body.id as string;
    expect((await http.get(`${W}/${id}`).set('authorization', auth)).body.eventTypes).toEqual(['VirtualAccount_Created']);
    const kept = await http.patch(`${W}/${id}`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/b' });
    expect(kept.body).toMatchObject({ url: 'http://127.0.0.1:9/b', eventTypes: ['VirtualAccount_Created'] });
    const cleared = await http.patch(`${W}/${id}`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/b', eventTypes: [] });
    expect(cleared.body.eventTypes).toEqual([]);
  });

  it('refuses a type or pattern that takes no known type, naming it', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const res = await http
      .post(W)
      .set('authorization', auth)
      .send({ url: 'http://127.0.0.1:9/a', eventTypes: ['Transaction_Created', 'Transaction_Deleted', 'Payout*'] });
    expect([res.status, res.body.code]).toEqual([400, 'unknown_event_type']);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.eventTypes[1]', 'body.eventTypes[2]']);
    const empty = await http
      .post(W)
      .set('authorization', auth)
      .send({ url: 'http://127.0.0.1:9/a', eventTypes: [''] });
    expect([empty.status, empty.body.errors[0].path]).toEqual([400, 'body.eventTypes.0']);
    expect((await http.get(W).set('authorization', auth)).body).toEqual([]);
  });
});
