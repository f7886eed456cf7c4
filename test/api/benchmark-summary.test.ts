import { describe, expect, it } from 'vitest';
import { importTransactions } from '../../src/services/transaction-import.js';
import { createOrganization } from '../../src/services/organizations.js';
import { countTransactions } from '../../src/store/transactions.js';
import request from 'supertest';
import { createApp } from '../../src/api/app.js';
import { inlineReads } from '../../src/db/read-pool.js';
import { readQueries } from '../../src/services/offloaded-reads.js';
import { TokenService } from '../../src/services/tokens.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';

const CSV = [
  'type,status,provider,providerTransactionId,currency,country,corridor,benchmark,reviewState,reconciliation,amountUsd,costVsMarketUsd,createdAt,updatedAt',
  'Deposit,Completed,PfiOne,p-1,USDC,MX,US-MX,Competitive,AllClear,Matched,1000,-5,2026-01-10T10:00:00Z,2026-02-01T00:00:00Z',
  'Withdrawal,Completed,PfiTwo,p-2,MXN,MX,US-MX,InLine,NeedReview,Mismatched,2000,1.5,2026-01-31T23:59:59.999Z,2026-01-31T23:59:59.999Z',
  'Exchange,Failed,PfiTwo,p-3,BRL,BR,US-BR,OffMarket,ReconciliationIssues,PfiError,500,10.25,2026-02-01T00:00:00Z,',
  'Deposit,Completed,PfiThree,p-4,USDC,ZZ,US-CO,Competitive,AllClear,Matched,1500,-2,2026-02-15T12:00:00+02:00,',
  '"Deposit",Pending,PfiOne,"p-5, quoted",USDC,MX,US-MX,Calibrating,AllClear,Missing,9999,,2026-02-20T00:00:00Z,',
].join('\n');

async function setup() {
  const ctx = await makeContext();
  const api = makeApi(ctx);
  const acme = await makeOrg(ctx, api.tokens);
  expect((await importTransactions(ctx, acme.org.id, CSV, 'csv')).imported).toBe(5);
  const get = async (q = '') => api.http.get(`/v1/transactions/import-benchmark-summary${q}`).set('Authorization', acme.auth);
  return { ctx, ...api, acme, get };
}

describe('GET /v1/transactions/import-benchmark-summary', () => {
  it('summarizes only Competitive, InLine and OffMarket transactions', async () => {
    const { get } = await setup();
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      hasSignal: false,
      sampleSize: 4,
      totalVolumeUsd: '5000',
      pointUsd: '4.75',
      lowUsd: '4.75',
      highUsd: '4.75',
      competitiveCount: 2,
      inLineCount: 1,
      offMarketCount: 1,
      concentrationDisclosure: true,
      divergenceDisclosure: true,
      nearZero: false,
    });
  });

  it.each([
    ['?origin=imported', 4, '5000'],
    ['?origin=orchestrated', 0, '0'],
    ['?status=Failed', 1, '500'],
    ['?type=Deposit', 2, '2500'],
    ['?provider=PfiTwo', 2, '2500'],
    ['?benchmark=Competitive', 2, '2500'],
    ['?benchmark=Calibrating', 0, '0'],
    ['?reviewState=AllClear', 2, '2500'],
    ['?reconciliation=PfiError', 1, '500'],
    ['?country=ZZ', 1, '1500'],
    ['?currency=USDC', 2, '2500'],
    ['?providerTransactionId=p-2', 1, '2000'],
    ['?fromDate=2026-02-01', 2, '2000'], // p-3 at 00:00 and p-4 (10:00 UTC)
    ['?toDate=2026-01-31', 2, '3000'], // toDate covers the whole day
    ['?fromDate=2026-01-31&toDate=2026-02-01', 2, '2500'],
    ['?fromUpdatedDate=2026-02-01', 3, '3000'],
    ['?toUpdatedDate=2026-01-31', 1, '2000'],
    // The ends of the calendar are real dates and open-ended bounds, not an empty range or a 400.
    ['?toDate=9999-12-31', 4, '5000'],
    ['?toUpdatedDate=9999-12-31', 4, '5000'],
    ['?fromDate=0001-01-01', 4, '5000'],
    ['?fromUpdatedDate=0000-01-01&toUpdatedDate=9999-12-31', 4, '5000'],
  ])('filters %s', async (q, size, volume) => {
    const { get } = await setup();
    const res = await get(q);
    expect(res.status).toBe(200);
    expect(res.body.sampleSize).toBe(size);
    expect(res.body.totalVolumeUsd).toBe(volume);
  });

  it.each([
    ['?fromDate=2026-01-01&fromUpdatedDate=2026-01-01', 'query.fromUpdatedDate'],
    ['?toDate=2026-01-01&toUpdatedDate=2026-01-01', 'query.toUpdatedDate'],
    ['?fromDate=2026-01-01&toUpdatedDate=2026-03-01', 'query.toUpdatedDate'],
    ['?fromDate=2026-02-30', 'query.fromDate'],
    ['?toUpdatedDate=2026-1-5', 'query.toUpdatedDate'],
    ['?fromDate=2026-03-01&toDate=2026-02-01', 'query.toDate'],
    ['?origin=both', 'query.origin'],
    ['?status=Done', 'query.status'],
    ['?type=Swap', 'query.type'],
    ['?benchmark=Good', 'query.benchmark'],
    ['?reviewState=Ok', 'query.reviewState'],
    ['?reconciliation=Ok', 'query.reconciliation'],
    ['?country=MEX', 'query.country'],
    ['?country=QQ', 'query.country'],
    ['?currency=us%20d', 'query.currency'],
    ['?nope=1', 'query'],
  ])('refuses %s naming %s', async (q, path) => {
    const { get } = await setup();
    const res = await get(q);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it("is scoped to the token's organization", async () => {
    const { ctx, http, tokens } = await setup();
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const res = await http.get('/v1/transactions/import-benchmark-summary').set('Authorization', other.auth);
    expect(res.body.sampleSize).toBe(0);
  });
});

describe('benchmark summaries per organization', () => {
  it('runs at most database.summariesPerOrganization at once for one organization (429 beyond), others unaffected', async () => {
    const ctx = await makeContext({ 'database.summariesPerOrganization': 2 });
    // Reads that finish only when the test lets them: summaries that take their time, as over 100,000 rows.
    const inline = inlineReads(ctx.db, readQueries);
    const gates: (() => void)[] = [];
    const reads = {
      ...inline,
      run: (async (name, args) => {
        if (name === 'benchmarkSummary') await new Promise<void>((r) => gates.push(r));
        return inline.run(name, args);
      }) as typeof inline.run,
    };
    const tokens = new TokenService(ctx);
    const http = request(createApp({ ctx, tokens, adminToken: ADMIN_TOKEN, reads }).app);
    const acme = await makeOrg(ctx, tokens);
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const path = '/v1/transactions/import-benchmark-summary';
    const running = [
      http
        .get(path)
        .set('authorization', acme.auth)
        .then((r) => r),
      http
        .get(path)
        .set('authorization', acme.auth)
        .then((r) => r),
    ];
    while (gates.length < 2) await new Promise((r) => setTimeout(r, 5));
    const third = await http.get(path).set('authorization', acme.auth);
    expect([third.status, third.body.code, third.headers['retry-after']]).toEqual([429, 'too_many_summaries', '1']);
    const others = http
      .get(path)
      .set('authorization', other.auth)
      .then((r) => r);
    while (gates.length < 3) await new Promise((r) => setTimeout(r, 5));
    for (const open of gates.splice(0)) open();
    expect((await Promise.all([...running, others])).map((r) => r.status)).toEqual([200, 200, 200]);
    // Done, so the places are free again.
    const again = http
      .get(path)
      .set('authorization', acme.auth)
      .then((r) => r);
    while (gates.length < 1) await new Promise((r) => setTimeout(r, 5));
    gates.splice(0).forEach((open) => open());
    expect((await again).status).toBe(200);
  });
});

describe('transaction import', () => {
  it('refuses the whole file with one error per bad line', async () => {
    const { ctx, acme } = await setup();
    const jsonl = [
      JSON.stringify({ type: 'Deposit', status: 'Completed', amountUsd: '10', createdAt: '2026-01-01T00:00:00Z' }),
      '{nope',
      JSON.stringify({ type: 'Deposit', status: 'Completed', amountUsd: '-1', createdAt: '2026-01-01T00:00:00Z' }),
      JSON.stringify({ type: 'Deposit', status: 'Completed', amountUsd: '1', benchmark: 'OffMarket', createdAt: 'yesterday' }),
      JSON.stringify({
        type: 'Deposit',
        status: 'Completed',
        amountUsd: '1',
        provider: 'PfiOne',
        providerTransactionId: 'p-1',
        createdAt: '2026-01-01T00:00:00Z',
      }),
    ].join('\n');
    let paths: string[] = [];
    try {
      await importTransactions(ctx, acme.org.id, jsonl, 'jsonl');
    } catch (err) {
      paths = (err as { extra: { errors: { path: string }[] } }).extra.errors.map((e) => e.path);
    }
    expect(paths).toEqual(['line 2', 'line 3.amountUsd', 'line 4.createdAt', 'line 4.costVsMarketUsd', 'line 5.providerTransactionId']);
    expect(await countTransactions(ctx.db, acme.org.id, 'imported')).toBe(5);
  });

  it('reports a CSV row with the wrong number of fields on its line', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'A');
    await expect(importTransactions(ctx, org.id, 'type,status,amountUsd,createdAt\nDeposit,Completed,1\n', 'csv')).rejects.toThrow(
      /1 error/,
    );
    expect(
      (await importTransactions(ctx, org.id, 'type,status,amountUsd,createdAt\r\nDeposit,Completed,"1.50",2026-01-01T00:00:00Z\r\n', 'csv'))
        .imported,
    ).toBe(1);
  });
});
