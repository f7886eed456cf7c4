import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { ADMIN_TOKEN, makeApi, makeContext } from '../support/context.js';
import { plansOf } from '../support/query-plans.js';
import { onPostgres } from '../support/postgres.js';
import { listInbound } from '../../src/inbound/event-queue.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

const key = makeKeyPair();
const admin = `Bearer ${ADMIN_TOKEN}`;

describe('admin inbound routes', () => {
  it('maps an ica, which queues its unmatched notifications', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    await importCardNetworkKey(ctx, org.id, Buffer.from(key.privatePem));
    const { http } = makeApi(ctx);
    await http.post('/v1/webhooks/card-network').send(notification(await joseToken({ x: 1 }, key), { ica: '777' }));
    const unmatched = await http.get('/admin/v1/inbound/events?state=unmatched').set('authorization', admin);
    expect(unmatched.body.data.map((e: { eventId: string }) => e.eventId)).toEqual(['ev-1']);

    const put = await http.put('/admin/v1/inbound/icas/777').set('authorization', admin).send({ organizationId: org.id });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ mapping: { ica: '777', organizationId: org.id, source: 'database' }, requeued: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    const list = await http.get('/admin/v1/inbound/events').set('authorization', admin);
    expect(list.body).toMatchObject({
      hasMore: false,
      data: [{ eventId: 'ev-1', state: 'decrypted', organizationId: org.id, kid: key.kid }],
    });
    expect(JSON.stringify(list.body)).not.toContain('"x":1');

    const icas = await http.get('/admin/v1/inbound/icas').set('authorization', admin);
    expect(icas.body.data).toEqual([expect.objectContaining({ ica: '777', organizationId: org.id })]);
    expect((await http.delete('/admin/v1/inbound/icas/777').set('authorization', admin)).status).toBe(204);
    expect((await http.delete('/admin/v1/inbound/icas/777').set('authorization', admin)).status).toBe(404);
  });

  it('404 for an unknown organization, 401 without the admin token, 400 for a bad body', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    expect((await http.put('/admin/v1/inbound/icas/1').set('authorization', admin).send({ organizationId: 'org_nope' })).status).toBe(404);
    expect((await http.put('/admin/v1/inbound/icas/1').send({ organizationId: 'org_nope' })).status).toBe(401);
    const bad = await http.put('/admin/v1/inbound/icas/1').set('authorization', admin).send({ org: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body', 'body.organizationId']);
  });

  it('retries a failed notification, and pages the list', async () => {
    const ctx = await makeContext({ 'inbound.decryptRetrySeconds': [] });
    const org = await createOrganization(ctx, 'Acme');
    ctx.config.inbound.icaOrganizations = { '123456': org.id };
    const { http } = makeApi(ctx);
    for (const id of ['a', 'b', 'c'])
      await http.post('/v1/webhooks/card-network').send(notification(await joseToken({ id }, key), { eventId: id }));
    expect(await decryptDue(ctx)).toMatchObject({ failed: 3 });
    const page = await http.get('/admin/v1/inbound/events?state=failed&limit=2').set('authorization', admin);
    expect(page.body.hasMore).toBe(true);
    expect(page.body.data.map((e: { failureCode: string }) => e.failureCode)).toEqual(['unknown_kid', 'unknown_kid']);
    const next = await http
      .get(`/admin/v1/inbound/events?state=failed&limit=2&startingAfter=${page.body.data[1].id}`)
      .set('authorization', admin);
    expect(next.body).toMatchObject({ hasMore: false, data: [{ eventId: 'c' }] });
    for (const bad of ['0', '101', '1e1', '2.0']) {
      const refused = await http.get(`/admin/v1/inbound/events?limit=${bad}`).set('authorization', admin);
      expect([refused.status, refused.body.errors?.[0]?.path], bad).toEqual([400, 'query.limit']);
    }

    await importCardNetworkKey(ctx, org.id, Buffer.from(key.privatePem));
    expect((await http.post('/admin/v1/inbound/events/b/retry').set('authorization', admin)).body).toEqual({ requeued: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await http.post('/admin/v1/inbound/events/b/retry').set('authorization', admin)).status).toBe(409);
    expect((await http.post('/admin/v1/inbound/events/zzz/retry').set('authorization', admin)).status).toBe(404);
  });
});

// SQLite's plans (EXPLAIN QUERY PLAN); PostgreSQL plans from its own statistics.
describe.skipIf(onPostgres)('inbound reads at scale', () => {
  it('pages the list and takes the decryption queue along an index in their own order: no sort of every matching row', async () => {
    const ctx = await makeContext();
    const plans = await plansOf(
      ctx.db,
      async () => {
        for (const state of ['received', 'decrypted', 'failed', 'unmatched'] as const) {
          await listInbound(ctx, { state, limit: 20 });
          await listInbound(ctx, { state, startingAfter: 'inb_x', limit: 20 });
          await listInbound(ctx, { state, eventType: 'TOKEN_STATUS_UPDATED', limit: 20 });
        }
        await listInbound(ctx, { limit: 20 });
        await decryptDue(ctx);
      },
      /FROM inbound_events/,
    );
    expect(plans.length).toBeGreaterThanOrEqual(4);
    for (const { sql, plan } of plans)
      expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringMatching(/TEMP B-TREE|\bSCAN inbound_events\b(?! USING)/) });
  });
});

describe('openapi', () => {
  it('describes the inbound and admin inbound routes', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const doc = (await http.get('/openapi.json')).body as { paths: Record<string, Record<string, { security: unknown[] }>> };
    expect(doc.paths['/v1/webhooks/card-network']!.post!.security).toEqual([]);
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/admin/v1/inbound'))
        .sort(),
    ).toEqual([
      '/admin/v1/inbound/events',
      '/admin/v1/inbound/events/{eventId}/retry',
      '/admin/v1/inbound/icas',
      '/admin/v1/inbound/icas/{ica}',
    ]);
  });
});
