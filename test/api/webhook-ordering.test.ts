/**
 * The webhook setting `ordering` on the API: set on create and PATCH, kept when a PATCH leaves it
 * out, shown in every webhook view, and an unknown value refused with a 400 that names the allowed ones.
 */
import { describe, expect, it } from 'vitest';
import { makeApi, makeContext, makeOrg, ADMIN_TOKEN } from '../support/context.js';

const W = '/v1/notifications/webhooks/settings';

describe('webhook ordering', () => {
  it('defaults to none, is set on create and PATCH, kept when absent, and shown in the list, one webhook and the health views', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const plain = await http.post(W).set('authorization', auth).send({ url: 'http://127.0.0.1:9/plain' });
    expect(plain.status).toBe(201);
    expect(plain.body.ordering).toBe('none');
    const ordered = await http.post(W).set('authorization', auth).send({ url: 'http://127.0.0.1:9/ordered', ordering: 'resource' });
    expect(ordered.body.ordering).toBe('resource');

    const strict = await http
      .patch(`${W}/${plain.body.id}`)
      .set('authorization', auth)
      .send({ url: 'http://127.0.0.1:9/plain', ordering: 'webhook' });
    expect(strict.status).toBe(200);
    expect(strict.body.ordering).toBe('webhook');
    const kept = await http.patch(`${W}/${plain.body.id}`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/moved' });
    expect(kept.body).toMatchObject({ url: 'http://127.0.0.1:9/moved', ordering: 'webhook' });

    expect((await http.get(`${W}/${ordered.body.id}`).set('authorization', auth)).body.ordering).toBe('resource');
    const list = (await http.get(W).set('authorization', auth)).body as { id: string; ordering: string }[];
    expect(Object.fromEntries(list.map((w) => [w.id, w.ordering]))).toEqual({ [plain.body.id]: 'webhook', [ordered.body.id]: 'resource' });
    const health = await http.get('/v1/notifications/webhooks/health').set('authorization', auth);
    expect(health.body.data.map((d: { webhook: { ordering: string } }) => d.webhook.ordering).sort()).toEqual(['resource', 'webhook']);
    const operator = await http
      .get(`/admin/v1/organizations/${org.id}/notifications/webhooks/health`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(operator.body.data.map((d: { webhook: { ordering: string } }) => d.webhook.ordering).sort()).toEqual(['resource', 'webhook']);
    const admin = await http.get(`/admin/v1/webhooks?organizationId=${org.id}`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(Object.fromEntries(admin.body.data.map((w: { id: string; ordering: string }) => [w.id, w.ordering]))).toEqual({
      [plain.body.id]: 'webhook',
      [ordered.body.id]: 'resource',
    });
  });

  it('refuses an unknown ordering with a 400 problem naming body.ordering and the allowed values, on create and PATCH', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const created = await http.post(W).set('authorization', auth).send({ url: 'http://127.0.0.1:9/a' });
    for (const res of [
      await http.post(W).set('authorization', auth).send({ url: 'http://127.0.0.1:9/b', ordering: 'fifo' }),
      await http.patch(`${W}/${created.body.id}`).set('authorization', auth).send({ url: 'http://127.0.0.1:9/a', ordering: 'Resource' }),
      await http.post(W).set('authorization', auth).send({ url: 'http://127.0.0.1:9/c', ordering: 1 }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const error = (res.body.errors as { path: string; message: string }[]).find((e) => e.path === 'body.ordering');
      expect(error?.message).toBe('must be one of none, resource, webhook');
    }
    // Nothing half-written: the refused create made no webhook, the refused PATCH changed nothing.
    const list = (await http.get(W).set('authorization', auth)).body as { ordering: string }[];
    expect(list.map((w) => w.ordering)).toEqual(['none']);
  });
});
