import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/clock.js';
import { changeTransactionStatus, createTransaction } from '../../src/services/transactions.js';
import { countTransactions } from '../../src/store/transactions.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

async function setup() {
  const ctx = await makeContext({}, '2026-03-01T00:00:00.000Z');
  const api = makeApi(ctx);
  const acme = await makeOrg(ctx, api.tokens);
  return { ctx, ...api, acme };
}

describe('refund configuration', () => {
  it('answers null when no default is set', async () => {
    const { http, acme } = await setup();
    const res = await http.get('/v1/refunds/config').set('Authorization', acme.auth);
    expect(res.status).toBe(200);
    expect(res.text).toBe('null');
  });

  it('sets the default with defaults applied and verifiedAt from the clock', async () => {
    const { http, acme } = await setup();
    const set = await http
      .post('/v1/refunds/config')
      .set('Authorization', acme.auth)
      .send({
        type: 'Address',
        addresses: [
          { network: 'ETHEREUM', address: EVM },
          { network: 'TRON', address: TRON },
        ],
      });
    expect(set.status).toBe(200);
    const res = await http.get('/v1/refunds/config').set('Authorization', acme.auth);
    expect(res.body).toEqual({
      destination: {
        type: 'Address',
        addresses: [
          { network: 'ETHEREUM', address: EVM },
          { network: 'TRON', address: TRON },
        ],
        autoRefund: true,
        autoFiatReturn: false,
      },
      verifiedAt: '2026-03-01T00:00:00.000Z',
      isStaleWarning: false,
      isStaleReject: false,
    });
  });

  it('flags staleness strictly after 30 and 90 days, and re-confirming resets it', async () => {
    const { ctx, http, tokens, acme } = await setup();
    await http.post('/v1/refunds/config').set('Authorization', acme.auth).send({ type: 'Source' });
    // Tokens live an hour: a fresh one for each moment the clock is moved to.
    const fresh = async () =>
      `Bearer ${(await tokens.issue({ clientId: acme.client.id, clientSecret: acme.client.clientSecret })).accessToken}`;
    const flags = async () => {
      const b = (await http.get('/v1/refunds/config').set('Authorization', await fresh())).body;
      return [b.isStaleWarning, b.isStaleReject];
    };
    const start = ctx.clock.now();
    ctx.clock.set(start + 30 * DAY_MS);
    expect(await flags()).toEqual([false, false]);
    ctx.clock.set(start + 30 * DAY_MS + 1);
    expect(await flags()).toEqual([true, false]);
    ctx.clock.set(start + 90 * DAY_MS);
    expect(await flags()).toEqual([true, false]);
    ctx.clock.set(start + 90 * DAY_MS + 1);
    expect(await flags()).toEqual([true, true]);
    const re = await http.post('/v1/refunds/config/reconfirm').set('Authorization', await fresh());
    expect(re.status).toBe(200);
    expect(re.body).toMatchObject({
      verifiedAt: new Date(start + 90 * DAY_MS + 1).toISOString(),
      isStaleWarning: false,
      isStaleReject: false,
    });
  });

  it('re-confirming without a default is a 404', async () => {
    const { http, acme } = await setup();
    expect((await http.post('/v1/refunds/config/reconfirm').set('Authorization', acme.auth)).status).toBe(404);
  });

  it.each([
    [{ type: 'Address' }, 'body.addresses', /at least one/],
    [{ type: 'Address', addresses: [] }, 'body.addresses', /at least one/],
    [{ type: 'Source', addresses: [{ network: 'ETHEREUM', address: EVM }] }, 'body.addresses', /only allowed when type is Address/],
    [
      {
        type: 'Address',
        addresses: [
          { network: 'ETHEREUM', address: EVM },
          { network: 'ETHEREUM', address: EVM.toLowerCase() },
        ],
      },
      'body.addresses.1.network',
      /one refund address per network/,
    ],
    [{ type: 'Address', addresses: [{ network: 'POLYGON', address: EVM.replace('d', 'D') }] }, 'body.addresses.0.address', /EIP-55/],
    [{ type: 'Address', addresses: [{ network: 'TRON', address: EVM }] }, 'body.addresses.0.address', /TRON/],
    [{ type: 'Address', addresses: [{ network: 'DOGE', address: EVM }] }, 'body.addresses.0.network', /./],
    [{ type: 'Wallet' }, 'body.type', /./],
    [{ type: 'Source', autoRefund: 'yes' }, 'body.autoRefund', /./],
  ])('refuses %j naming %s', async (payload, path, message) => {
    const { http, acme } = await setup();
    const res = await http.post('/v1/refunds/config').set('Authorization', acme.auth).send(payload);
    expect(res.status).toBe(400);
    const err = res.body.errors.find((e: { path: string }) => e.path === path);
    expect(err?.message).toMatch(message);
    expect((await http.get('/v1/refunds/config').set('Authorization', acme.auth)).text).toBe('null');
  });

  it("keeps each organization's default to itself", async () => {
    const { ctx, http, tokens, acme } = await setup();
    await http.post('/v1/refunds/config').set('Authorization', acme.auth).send({ type: 'ProviderBalance', autoRefund: false });
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    expect((await http.get('/v1/refunds/config').set('Authorization', other.auth)).text).toBe('null');
  });
});

describe('per-transaction refund destination', () => {
  const admin = `Bearer ${ADMIN_TOKEN}`;
  it.each([
    [
      'an address invalid for its network',
      { network: 'ETHEREUM', address: '0xabc' },
      undefined,
      'body.refundDestination.address',
      /not a valid ETHEREUM address/,
    ],
    [
      'a bad EIP-55 checksum',
      { network: 'ETHEREUM', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' },
      undefined,
      'body.refundDestination.address',
      /EIP-55/,
    ],
    [
      'an address checked against the transaction network',
      { address: EVM },
      'TRON',
      'body.refundDestination.address',
      /not a valid TRON address/,
    ],
    ['an address without any network', { address: EVM }, undefined, 'body.refundDestination.network', /no crypto network/],
    [
      'type Address without an address',
      { type: 'Address', network: 'TRON' },
      undefined,
      'body.refundDestination.address',
      /needs an address/,
    ],
    ['an unknown network', { network: 'DOGE', address: EVM }, undefined, 'body.refundDestination.network', /./],
  ])('refuses %s with a 400 naming the field', async (_what, refundDestination, network, path, message) => {
    const { ctx, http, acme } = await setup();
    const res = await http
      .post('/admin/v1/transactions')
      .set('Authorization', admin)
      .send({ orgId: acme.org.id, type: 'Deposit', ...(network ? { network } : {}), refundDestination });
    expect(res.status).toBe(400);
    const error = (res.body.errors as { path: string; message: string }[]).find((e) => e.path === path);
    expect(error?.message).toMatch(message);
    expect(await countTransactions(ctx.db, acme.org.id)).toBe(0);
  });

  it('accepts valid addresses for the named or the transaction network, and other types without one', async () => {
    const { http, acme } = await setup();
    for (const [network, refundDestination] of [
      [undefined, { network: 'ETHEREUM', address: EVM }],
      ['TRON', { address: TRON }],
      [undefined, { type: 'Source' }],
      [undefined, { type: 'ProviderBalance', autoRefund: false }],
    ] as const) {
      const res = await http
        .post('/admin/v1/transactions')
        .set('Authorization', admin)
        .send({ orgId: acme.org.id, type: 'Deposit', ...(network ? { network } : {}), refundDestination });
      expect(res.status).toBe(201);
      expect(res.body.refundDestination).toEqual(refundDestination);
    }
  });
});

describe('admin refund plans', () => {
  it('lists plans and dispatches a Created one once', async () => {
    const { ctx, http, acme } = await setup();
    const { ADMIN_TOKEN } = await import('../support/context.js');
    const admin = `Bearer ${ADMIN_TOKEN}`;
    await http.post('/v1/refunds/config').set('Authorization', acme.auth).send({ type: 'Source', autoRefund: false });
    const at = new Date(ctx.clock.now()).toISOString();
    const txn = await createTransaction(ctx, { orgId: acme.org.id, type: 'Deposit' });
    await changeTransactionStatus(ctx, txn.id, 'Failed'); // records its plan
    const list = await http.get(`/admin/v1/refund-plans?orgId=${acme.org.id}&state=Created`).set('Authorization', admin);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ transactionId: txn.id, state: 'Created', destination: { type: 'Source' } });
    const id = list.body.data[0].id;
    const first = await http.post(`/admin/v1/refund-plans/${id}/dispatch`).set('Authorization', admin);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ state: 'Dispatched', dispatchedAt: at });
    const second = await http.post(`/admin/v1/refund-plans/${id}/dispatch`).set('Authorization', admin);
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('refund_plan_not_dispatchable');
    expect((await http.get('/admin/v1/refund-plans?state=Nope').set('Authorization', admin)).status).toBe(400);
  });
});
