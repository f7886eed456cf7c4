import { describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/store/delivery-views.js';
import { committedEvents } from '../support/events.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';

const admin = `Bearer ${ADMIN_TOKEN}`;

async function setup() {
  const ctx = await makeContext();
  const api = makeApi(ctx);
  const org = await makeOrg(ctx, api.tokens);
  const hook = await api.http
    .post('/v1/notifications/webhooks/settings')
    .set('authorization', org.auth)
    .send({ url: 'http://127.0.0.1:9/hook' });
  const events = async () => (await committedEvents(ctx.db, org.org.id)).map(({ type, body }) => ({ type, body }));
  return { ctx, ...api, org, webhookId: hook.body.id as string, events };
}

describe('admin transactions and event producers', () => {
  it('creates a transaction and moves it, writing one event and one delivery per change', async () => {
    const { ctx, http, org, events } = await setup();
    const created = await http
      .post('/admin/v1/transactions')
      .set('authorization', admin)
      .send({
        orgId: org.org.id,
        type: 'Transfer',
        amount: '99.99',
        currency: 'EUR',
        source: { accountId: 'acc_1' },
        destination: { iban: 'DE00' },
        refundDestination: { network: 'ETHEREUM', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
      });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'Submitted',
      type: 'Transfer',
      amount: '99.99',
      refundDestination: { network: 'ETHEREUM', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
    });
    const id = created.body.id as string;
    const moved = await http
      .post(`/admin/v1/transactions/${id}/status`)
      .set('authorization', admin)
      .send({ status: 'Failed', failureReason: 'insufficient funds' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ status: 'Failed', failureReason: 'insufficient funds' });
    const rows = await events();
    expect(rows.map((r) => r.type)).toEqual(['Transaction_Created', 'Transaction_Updated']);
    const body = JSON.parse(rows[1]!.body);
    expect(body).toMatchObject({
      organizationId: org.org.id,
      data: { id, status: 'Failed', previousStatus: 'Submitted', failureReason: 'insufficient funds' },
    });
    expect(body.timestamp).toBe(Date.parse(body.createdAt));
    expect((await listDeliveries(ctx.db, { limit: 10 })).map((d) => d.state)).toEqual(['pending', 'pending']);
  });

  it('refuses an illegal move with 409 and writes nothing', async () => {
    const { http, org, events } = await setup();
    const id = (await http.post('/admin/v1/transactions').set('authorization', admin).send({ orgId: org.org.id, type: 'Deposit' })).body.id;
    await http.post(`/admin/v1/transactions/${id}/status`).set('authorization', admin).send({ status: 'Cancelled' });
    const res = await http.post(`/admin/v1/transactions/${id}/status`).set('authorization', admin).send({ status: 'Completed' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('illegal_status_change');
    expect(await events()).toHaveLength(2);
    const bad = await http.post(`/admin/v1/transactions/${id}/status`).set('authorization', admin).send({ status: 'Done' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('body.status');
  });

  it("refuses a network that is not one of the spec's NetworkIds, which the refund plan would not recognize", async () => {
    const { http, org, events } = await setup();
    const bad = await http
      .post('/admin/v1/transactions')
      .set('authorization', admin)
      .send({ orgId: org.org.id, type: 'Withdrawal', amount: '10.5', currency: 'USDC', network: 'Solana' });
    expect([bad.status, bad.body.errors[0].path]).toEqual([400, 'body.network']);
    expect(await events()).toHaveLength(0);
    const good = await http
      .post('/admin/v1/transactions')
      .set('authorization', admin)
      .send({ orgId: org.org.id, type: 'Withdrawal', amount: '10.5', currency: 'USDC', network: 'SOLANA' });
    expect([good.status, good.body.network]).toEqual([201, 'SOLANA']);
  });

  it('rolls back the change and its event together when a hook throws', async () => {
    const { ctx, http, org, events } = await setup();
    const id = (await http.post('/admin/v1/transactions').set('authorization', admin).send({ orgId: org.org.id, type: 'Swap' })).body.id;
    const hook = () => {
      throw new Error('hook failed');
    };
    ctx.transactionHooks = [...ctx.transactionHooks, hook];
    const res = await http.post(`/admin/v1/transactions/${id}/status`).set('authorization', admin).send({ status: 'Verifying' });
    expect(res.status).toBe(500);
    expect(await events()).toHaveLength(1);
    expect((await http.get(`/admin/v1/transactions/${id}`).set('authorization', admin)).body.status).toBe('Submitted');
  });

  it('emits the compliance and virtual account events, and synthetic ones', async () => {
    const { http, org, events } = await setup();
    const check = await http
      .post('/admin/v1/compliance-checks')
      .set('authorization', admin)
      .send({ orgId: org.org.id, identityId: 'idn_1' });
    expect(check.status).toBe(201);
    const noResult = await http
      .post(`/admin/v1/compliance-checks/${check.body.id}/status`)
      .set('authorization', admin)
      .send({ status: 'Completed' });
    expect(noResult.status).toBe(400);
    await http
      .post(`/admin/v1/compliance-checks/${check.body.id}/status`)
      .set('authorization', admin)
      .send({ status: 'Completed', result: 'Approved' });
    expect(
      (await http.post(`/admin/v1/compliance-checks/${check.body.id}/status`).set('authorization', admin).send({ status: 'InProgress' }))
        .status,
    ).toBe(409);
    await http
      .post('/admin/v1/virtual-accounts')
      .set('authorization', admin)
      .send({ orgId: org.org.id, status: 'Created', currency: 'USD' });
    await http
      .post('/admin/v1/virtual-accounts')
      .set('authorization', admin)
      .send({ orgId: org.org.id, status: 'CreationFailed', failureReason: 'provider down' });
    const synthetic = await http
      .post('/admin/v1/events')
      .set('authorization', admin)
      .send({ orgId: org.org.id, type: 'Transaction_Created', data: { status: 'Submitted' } });
    expect(synthetic.status).toBe(201);
    expect(synthetic.body).toMatchObject({
      type: 'Transaction_Created',
      organizationId: org.org.id,
      data: { status: 'Submitted', synthetic: true },
    });
    expect((await events()).map((e) => e.type)).toEqual([
      'IdentityComplianceCheck_Updated',
      'IdentityComplianceCheck_Completed',
      'VirtualAccount_Created',
      'VirtualAccount_CreationFailed',
      'Transaction_Created',
    ]);
    expect(JSON.parse((await events())[3]!.body).data).toMatchObject({ status: 'CreationFailed', failureReason: 'provider down' });
  });

  it('accepts only the admin token', async () => {
    const { http, org } = await setup();
    const res = await http.post('/admin/v1/transactions').set('authorization', org.auth).send({ orgId: org.org.id, type: 'Deposit' });
    expect(res.status).toBe(401);
    const unknownOrg = await http.post('/admin/v1/transactions').set('authorization', admin).send({ orgId: 'org_nope', type: 'Deposit' });
    expect(unknownOrg.status).toBe(404);
  });
});
