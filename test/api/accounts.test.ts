import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';

const admin = `Bearer ${ADMIN_TOKEN}`;
const body = {
  provider: 'Standalone',
  name: 'Treasury',
  assets: [{ asset: 'USDC', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }],
  fiats: [{ fiat: 'MXN' }],
  type: 'wallet',
  pfi: 'SomePfi',
  web3Provider: 'Standalone',
};

async function setup(flags: Record<string, unknown> = {}) {
  const ctx = await makeContext(flags);
  const api = makeApi(ctx);
  const acme = await makeOrg(ctx, api.tokens);
  const created = await api.http.post(`/admin/v1/organizations/${acme.org.id}/accounts`).set('Authorization', admin).send(body);
  expect(created.status).toBe(201);
  return { ctx, ...api, acme, id: created.body.id as string };
}

describe('GET /v1/accounts/{id}', () => {
  it('answers the Account without the removed deprecated fields by default', async () => {
    const { http, acme, id, ctx } = await setup();
    const res = await http.get(`/v1/accounts/${id}`).set('Authorization', acme.auth);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['id', 'provider', 'name', 'assets', 'fiats', 'identityId', 'createdAt']);
    expect(res.body).toMatchObject({
      id,
      provider: 'Standalone',
      name: 'Treasury',
      identityId: null,
      createdAt: new Date(ctx.clock.now()).toISOString(),
    });
    expect(res.body.assets).toEqual([{ id: expect.stringMatching(/^ast_/), asset: 'USDC', address: body.assets[0]!.address }]);
    expect(res.body.fiats).toEqual([{ id: expect.stringMatching(/^fia_/), fiat: 'MXN' }]);
    expect(res.headers.deprecation).toBeUndefined();
  });

  it('brings the legacy fields back with Deprecation and Sunset when configured', async () => {
    const { http, acme, id } = await setup({ 'accounts.legacyFields': true });
    const res = await http.get(`/v1/accounts/${id}`).set('Authorization', acme.auth);
    expect(res.body).toMatchObject({ type: 'wallet', pfi: 'SomePfi', web3Provider: 'Standalone' });
    expect(res.headers.deprecation).toMatch(/^@\d+$/);
    expect(res.headers.sunset).toBe('Tue, 01 Sep 2026 00:00:00 GMT');
  });

  it("answers 404 for an unknown id and for another organization's account", async () => {
    const { ctx, http, tokens, acme, id } = await setup();
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const unknown = await http.get('/v1/accounts/acc_nope').set('Authorization', acme.auth);
    const foreign = await http.get(`/v1/accounts/${id}`).set('Authorization', other.auth);
    // An id of any length that names no account is unknown, not invalid input.
    const long = await http.get(`/v1/accounts/acc_${'x'.repeat(200)}`).set('Authorization', acme.auth);
    for (const res of [unknown, foreign, long]) {
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
    }
    expect(unknown.body.title).toBe(foreign.body.title);
    expect(long.body.code).toBe('not_found');
  });

  it('refuses an account for an unknown identity and bad asset codes', async () => {
    const { http, acme } = await setup();
    const noIdentity = await http
      .post(`/admin/v1/organizations/${acme.org.id}/accounts`)
      .set('Authorization', admin)
      .send({ ...body, identityId: 'idn_nope' });
    expect(noIdentity.status).toBe(404);
    const badCode = await http
      .post(`/admin/v1/organizations/${acme.org.id}/accounts`)
      .set('Authorization', admin)
      .send({ ...body, fiats: [{ fiat: 'mx n' }] });
    expect(badCode.status).toBe(400);
    expect(badCode.body.errors[0].path).toBe('body.fiats.0.fiat');
    const noAuth = await http.post(`/admin/v1/organizations/${acme.org.id}/accounts`).set('Authorization', acme.auth).send(body);
    expect(noAuth.status).toBe(401);
  });
});
