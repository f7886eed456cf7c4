import { describe, expect, it } from 'vitest';
import { createIdentity } from '../../src/services/identities.js';
import { createApiClient } from '../../src/services/organizations.js';
import { setRefundConfig } from '../../src/services/refunds.js';
import { importTransactions } from '../../src/services/transaction-import.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('piiAccess redacted changes only identities', () => {
  it('answers the same body to an all and a redacted token on accounts, refunds config, benchmark summary and network', async () => {
    const ctx = await makeContext({}, '2026-03-01T00:00:00.000Z');
    const { http, tokens } = makeApi(ctx);
    const all = await makeOrg(ctx, tokens);
    const client = await createApiClient(ctx, { orgId: all.org.id, piiAccess: 'redacted' });
    const redacted = `Bearer ${(await tokens.issue({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'redacted' })).accessToken}`;

    const identity = await createIdentity(ctx, all.org.id, {
      type: 'Personal',
      deleted: false,
      hasComplianceChecks: false,
      data: { firstName: 'Wilhelmina', email: 'wil@example.com' },
    });
    const account = await http
      .post(`/admin/v1/organizations/${all.org.id}/accounts`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({
        provider: 'Standalone',
        name: 'Treasury Wilhelmina',
        identityId: identity.id,
        assets: [{ asset: 'USDC', address: EVM }],
        fiats: [{ fiat: 'MXN' }],
      });
    expect(account.status).toBe(201);
    await setRefundConfig(ctx, all.org.id, {
      type: 'Address',
      addresses: [{ network: 'ETHEREUM', address: EVM }],
      autoRefund: true,
      autoFiatReturn: false,
    });
    await importTransactions(
      ctx,
      all.org.id,
      [
        'type,status,provider,providerTransactionId,benchmark,amountUsd,costVsMarketUsd,createdAt',
        'Deposit,Completed,P1,p-1,Competitive,100,-1,2026-01-10T10:00:00Z',
        'Deposit,Completed,P2,p-2,OffMarket,50,2,2026-01-11T10:00:00Z',
      ].join('\n'),
      'csv',
    );

    const paths = [
      `/v1/accounts/${account.body.id}`,
      '/v1/refunds/config',
      '/v1/transactions/import-benchmark-summary',
      '/v1/organizations/network',
      '/v1/deposits/countries',
    ];
    for (const path of paths) {
      const a = await http.get(path).set('Authorization', all.auth);
      const r = await http.get(path).set('Authorization', redacted);
      expect(a.status, path).toBe(200);
      expect(r.status, path).toBe(200);
      expect(r.text, path).toBe(a.text);
      expect(a.text.length, path).toBeGreaterThan(4);
    }
    // The account answer really carries what a masking mistake would change.
    expect((await http.get(`/v1/accounts/${account.body.id}`).set('Authorization', redacted)).body).toMatchObject({
      name: 'Treasury Wilhelmina',
      identityId: identity.id,
      assets: [{ address: EVM }],
    });
  });
});
