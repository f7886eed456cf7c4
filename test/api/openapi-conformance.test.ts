import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'supertest';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { createIdentity } from '../../src/services/identities.js';
import { importTransactions } from '../../src/services/transaction-import.js';
import { changeTransactionStatus, createTransaction } from '../../src/services/transactions.js';
import { emitEvent } from '../../src/services/outbox.js';
import { setup as outboxSetup } from '../delivery/dispatch/support.js';

/**
 * /openapi.json checked by code written elsewhere: the document against the official OpenAPI 3.1
 * schema, and every answer the tests below get from the real app against the schema the document
 * publishes for that route and status (ajv, draft 2020-12).
 */

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as typeof addFormatsModule.default;

const admin = `Bearer ${ADMIN_TOKEN}`;
const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const DOC_ID = 'https://borderd.test/openapi.json';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

/** An ajv holding the whole document, so `$ref`s into its components resolve. */
function documentValidator(doc: Doc) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  // The document's own fields (and OpenAPI's schema keywords), so ajv's strict mode accepts it as a schema root.
  ajv.addVocabulary([
    'openapi',
    'info',
    'paths',
    'components',
    'servers',
    'security',
    'tags',
    'webhooks',
    'jsonSchemaDialect',
    'externalDocs',
    'discriminator',
    'xml',
    'example',
  ]);
  ajv.addSchema(doc as object, DOC_ID);
  const cache = new Map<string, ValidateFunction>();
  const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  return (ref: string[]): ValidateFunction => {
    const key = pointer(...ref);
    let fn = cache.get(key);
    if (!fn) cache.set(key, (fn = ajv.compile({ $ref: `${DOC_ID}#/${key}` })));
    return fn;
  };
}

async function setup(flags: Record<string, unknown> = {}) {
  const ctx = await makeContext(flags, '2026-03-01T00:00:00.000Z');
  const api = makeApi(ctx);
  return { ctx, ...api, ...(await served(api.http)) };
}

/** The document `http` serves, and a check of answers against it. */
async function served(http: ReturnType<typeof makeApi>['http']) {
  const res = await http.get('/openapi.json');
  expect(res.status).toBe(200);
  const doc = res.body as Doc;
  const schemaAt = documentValidator(doc);
  /**
   * The answer `res` of `method path` (the documented path template) matches the document: its
   * status is documented (an error status may fall to `default`), its content type is one the
   * document gives for it, and its body validates against that media type's schema. With
   * `expectedStatus`, the status is asserted first.
   */
  const conforms = (method: string, path: string, res: Response, expectedStatus?: number) => {
    if (expectedStatus !== undefined) expect(res.status, `${method} ${path}: ${res.text}`).toBe(expectedStatus);
    const op = doc.paths[path]?.[method];
    expect(op, `${method} ${path} is documented`).toBeDefined();
    const status = String(res.status);
    const key = status in op!.responses ? status : res.status >= 400 && 'default' in op!.responses ? 'default' : undefined;
    expect(key, `${method} ${path}: status ${status} is documented`).toBeDefined();
    const content = op!.responses[key!]!.content;
    const hasBody = res.text !== undefined && res.text !== '';
    if (!content) {
      expect(hasBody, `${method} ${path} ${status}: documented without a body, answered ${res.text}`).toBe(false);
      return;
    }
    const mediaType = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    expect(Object.keys(content), `${method} ${path} ${status}: content type`).toContain(mediaType);
    const validate = schemaAt(['paths', path, method, 'responses', key!, 'content', mediaType, 'schema']);
    const ok = validate(JSON.parse(res.text));
    expect(ok ? [] : validate.errors, `${method} ${path} ${status}: ${res.text}`).toEqual([]);
  };
  return { doc, conforms };
}

describe('/openapi.json conformance', () => {
  it('is a valid OpenAPI 3.1 document by the official schema', async () => {
    const { doc } = await setup();
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the check itself refuses answers the document does not describe', async () => {
    const { conforms } = await setup();
    const fake = (status: number, type: string, body: unknown) =>
      ({ status, text: JSON.stringify(body), headers: { 'content-type': type } }) as unknown as Response;
    const page = { hasMore: false, data: [{ id: 'idn_1', type: 'Personal', deleted: false, hasComplianceChecks: false, data: {} }] };
    expect(() => conforms('get', '/v1/identities', fake(200, 'application/json', page))).not.toThrow();
    expect(() => conforms('get', '/v1/identities', fake(200, 'application/json', { ...page, hasMore: 'no' }))).toThrow();
    expect(() => conforms('get', '/v1/identities', fake(200, 'application/json', { ...page, extra: 1 }))).toThrow();
    expect(() => conforms('get', '/v1/identities', fake(200, 'text/plain', page))).toThrow();
    expect(() => conforms('get', '/v1/identities', fake(201, 'application/json', page))).toThrow();
    expect(() => conforms('get', '/v1/identities', fake(400, 'application/problem+json', { title: 'Bad Request' }))).toThrow();
  });

  it('token endpoint: the issued token and the refusals', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const { client } = await makeOrg(ctx, tokens);
    const path = '/v1/auth/m2m/token';
    conforms('post', path, await http.post(path).send({ clientId: client.id, clientSecret: client.clientSecret }), 201);
    const redacted = await http.post(path).send({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'redacted' });
    expect(redacted.body.piiAccess).toBe('redacted');
    conforms('post', path, redacted);
    conforms('post', path, await http.post(path).send({ clientId: client.id, clientSecret: 'bsk_nope' }), 401);
    conforms('post', path, await http.post(path).send({ clientId: client.id }), 400);
    const limited = await makeOrg(ctx, tokens, { name: 'Limited', piiAccess: 'redacted' });
    conforms(
      'post',
      path,
      await http.post(path).send({ clientId: limited.client.id, clientSecret: limited.client.clientSecret, piiAccess: 'all' }),
      403,
    );
  });

  it('errors raised before any route: malformed JSON, a body not JSON, a body too large', async () => {
    const { http, ctx, tokens, conforms } = await setup({ 'server.bodyLimitBytes': 1024 });
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/refunds/config';
    const malformed = await http.post(path).set('Authorization', acme.auth).set('Content-Type', 'application/json').send('{"type":');
    expect([malformed.status, malformed.body.code]).toEqual([400, 'malformed_json']);
    conforms('post', path, malformed);
    conforms(
      'post',
      path,
      await http.post(path).set('Authorization', acme.auth).set('Content-Type', 'text/plain').send('type=Source'),
      415,
    );
    conforms(
      'post',
      path,
      await http
        .post(path)
        .set('Authorization', acme.auth)
        .send({ type: 'Source', pad: 'x'.repeat(2048) }),
      413,
    );
  });

  it('integrations of each kind (no provider to call)', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    for (const [provider, body, status] of [
      ['provider-a', { apiKey: 'key-123456', apiSecret: 'secret-ABCDEFG', companyId: 'co-42' }, 200],
      ['provider-b', { clientId: 'client-0001', clientSecret: 'secret-0001' }, 200],
      ['provider-c', { apiKey: 'key-123456', apiSecret: 'secret-ABCDEFG' }, 202],
      ['provider-b', { clientId: 'short', clientSecret: 'secret-0001' }, 400],
    ] as const) {
      const path = `/v1/organizations/integrations/${provider}`;
      const res = await http.put(path).set('Authorization', acme.auth).send(body);
      expect(res.status).toBe(status);
      conforms('put', path, res);
    }
  });

  it('identities with a full and with a redacted token', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const full = await makeOrg(ctx, tokens, { name: 'Full' });
    const red = await makeOrg(ctx, tokens, { name: 'Redacted', piiAccess: 'redacted' });
    const data = {
      firstName: 'Ana',
      lastName: 'García',
      secondLastName: 'Ruiz',
      middleName: 'Lu',
      taxId: 'ABC12345',
      dateOfBirth: '1990-02-03',
      email: 'ana.g@example.com',
      phone: '+5215512345678',
      activity: 'Trade',
      sex: 'Female',
      nameInLocalScript: 'アナ',
      employerName: 'Acme',
      address: { id: 'adr_1', street1: 'Calle 5', street2: 'Int 2', city: 'CDMX', state: 'CDMX', country: 'MX', postalCode: '06700' },
      documents: [
        {
          id: 'doc_1',
          type: 'Passport',
          subType: 'UtilityBill',
          idNumber: 'P1234567',
          issuingCountry: 'MX',
          issuedDate: '2020-01-01',
          expiryDate: '2030-01-01',
        },
      ],
      occupationCode: '123456',
      employmentStatus: 'Employed',
      sourceOfFunds: 'CompanyFunds',
      sourceOfWealth: 'BusinessDividendsOrProfits',
      accountPurpose: 'CharitableDonations',
      accountPurposeOther: 'gifts',
      monthlyAmounts: 'LessThan5K',
      actingAsIntermediary: false,
      citizenship: 'MX',
      nationalities: ['MX', 'ES'],
      placeOfBirthCountry: 'MX',
      placeOfBirthCity: 'Puebla',
      hasForeignTaxRegistration: false,
    };
    for (const org of [full, red]) {
      await createIdentity(ctx, org.org.id, { type: 'Personal', deleted: false, hasComplianceChecks: true, data });
      await createIdentity(ctx, org.org.id, {
        type: 'Business',
        deleted: true,
        hasComplianceChecks: false,
        data: { firstName: 'A', email: 'a@x.com', taxId: '12' },
      });
    }
    // The operator's routes that create an identity and set its flags answer the same record.
    const made = await http
      .post(`/admin/v1/organizations/${full.org.id}/identities`)
      .set('Authorization', admin)
      .send({ type: 'Personal', data });
    conforms('post', '/admin/v1/organizations/{orgId}/identities', made, 201);
    conforms(
      'patch',
      '/admin/v1/organizations/{orgId}/identities/{id}',
      await http
        .patch(`/admin/v1/organizations/${full.org.id}/identities/${made.body.id}`)
        .set('Authorization', admin)
        .send({ deleted: true }),
      200,
    );
    const a = await http.get('/v1/identities').set('Authorization', full.auth);
    expect(a.status).toBe(200);
    expect(a.body.data[0].data.email).toBe('ana.g@example.com');
    conforms('get', '/v1/identities', a);
    const r = await http.get('/v1/identities?limit=1').set('Authorization', red.auth);
    expect(r.status).toBe(200);
    expect(r.body.hasMore).toBe(true);
    expect(r.body.data[0].data).toMatchObject({ email: 'a****@example.com', dateOfBirth: '****-**-**', phone: '************78' });
    conforms('get', '/v1/identities', r);
    const r2 = await http.get(`/v1/identities?startingAfter=${r.body.data[0].id}`).set('Authorization', red.auth);
    expect(r2.body.data[0].data).toMatchObject({ firstName: '*', email: '*@x.com', taxId: '**' });
    conforms('get', '/v1/identities', r2);
    // 400 (bad limit), 403 (a prefix filter with a redacted token), 401 (no token).
    conforms('get', '/v1/identities', await http.get('/v1/identities?limit=0').set('Authorization', full.auth), 400);
    conforms('get', '/v1/identities', await http.get('/v1/identities?name=an').set('Authorization', red.auth), 403);
    conforms('get', '/v1/identities', await http.get('/v1/identities'), 401);
  });

  it.each([false, true])('accounts (legacy fields %s) and the 404', async (legacyFields) => {
    const { http, ctx, tokens, conforms } = await setup({ 'accounts.legacyFields': legacyFields });
    const acme = await makeOrg(ctx, tokens);
    const identity = await createIdentity(ctx, acme.org.id, {
      type: 'Personal',
      deleted: false,
      hasComplianceChecks: false,
      data: { firstName: 'Ana' },
    });
    for (const body of [
      {
        provider: 'Standalone',
        name: 'Treasury',
        assets: [{ asset: 'USDC', address: EVM }],
        fiats: [{ fiat: 'MXN' }],
        type: 'wallet',
        pfi: 'SomePfi',
        web3Provider: 'Standalone',
      },
      { provider: 'Standalone', name: 'Bare', identityId: identity.id },
    ]) {
      const created = await http.post(`/admin/v1/organizations/${acme.org.id}/accounts`).set('Authorization', admin).send(body);
      conforms('post', '/admin/v1/organizations/{orgId}/accounts', created, 201);
      conforms('get', '/v1/accounts/{id}', await http.get(`/v1/accounts/${created.body.id}`).set('Authorization', acme.auth), 200);
    }
    conforms('get', '/v1/accounts/{id}', await http.get('/v1/accounts/acc_nope').set('Authorization', acme.auth), 404);
  });

  it('admin refund plans: list, dispatch and refusals', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    // autoRefund false: the plans wait as Created for an operator to dispatch.
    await http
      .post('/v1/refunds/config')
      .set('Authorization', acme.auth)
      .send({ type: 'Address', addresses: [{ network: 'ETHEREUM', address: EVM }], autoRefund: false });
    // Two failed deposits, one on a network the default has an address for and one on none: the
    // status change records each one's plan.
    for (const network of ['ETHEREUM', null] as const) {
      const { id } = await createTransaction(ctx, { orgId: acme.org.id, type: 'Deposit', network });
      await changeTransactionStatus(ctx, id, 'Failed');
    }
    const list = await http.get(`/admin/v1/refund-plans?orgId=${acme.org.id}`).set('Authorization', admin);
    conforms('get', '/admin/v1/refund-plans', list, 200);
    // Both shapes are checked: a plan with a destination and one without.
    expect(list.body.data.map((p: { destination: unknown }) => p.destination)).toEqual([
      { type: 'Address', network: 'ETHEREUM', address: EVM },
      null,
    ]);
    const created = list.body.data.find((p: { state: string }) => p.state === 'Created');
    const path = '/admin/v1/refund-plans/{id}/dispatch';
    conforms('post', path, await http.post(`/admin/v1/refund-plans/${created.id}/dispatch`).set('Authorization', admin), 200);
    conforms('post', path, await http.post(`/admin/v1/refund-plans/${created.id}/dispatch`).set('Authorization', admin), 409);
    conforms('post', path, await http.post('/admin/v1/refund-plans/rfp_nope/dispatch').set('Authorization', admin), 404);
    conforms('get', '/admin/v1/refund-plans', await http.get('/admin/v1/refund-plans?state=Nope').set('Authorization', admin), 400);
  });

  it('refund configuration: null, set, read, reconfirm and refusals', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/refunds/config';
    const none = await http.get(path).set('Authorization', acme.auth);
    expect(none.text).toBe('null');
    conforms('get', path, none);
    conforms('post', `${path}/reconfirm`, await http.post(`${path}/reconfirm`).set('Authorization', acme.auth), 404);
    for (const body of [
      { type: 'Address', addresses: [{ network: 'ETHEREUM', address: EVM }] },
      { type: 'Source', autoRefund: false, autoFiatReturn: true },
      { type: 'ProviderBalance' },
    ]) {
      const set = await http.post(path).set('Authorization', acme.auth).send(body);
      conforms('post', path, set, 200);
      const read = await http.get(path).set('Authorization', acme.auth);
      expect(read.body.destination.type).toBe(body.type);
      conforms('get', path, read);
    }
    conforms('post', `${path}/reconfirm`, await http.post(`${path}/reconfirm`).set('Authorization', acme.auth), 200);
    conforms(
      'post',
      path,
      await http
        .post(path)
        .set('Authorization', acme.auth)
        .send({ type: 'Address', addresses: [{ network: 'ETHEREUM', address: 'nope' }] }),
      400,
    );
  });

  it('webhook settings and the public key', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const BASE = '/v1/notifications/webhooks/settings';
    conforms('get', `${BASE}/public-key`, await http.get(`${BASE}/public-key`).set('Authorization', acme.auth), 404);
    const created = await http.post(BASE).set('Authorization', acme.auth).send({ url: 'http://127.0.0.1:9/hook' });
    conforms('post', BASE, created, 201);
    const id = created.body.id as string;
    const one = await http.get(`${BASE}/${id}`).set('Authorization', acme.auth);
    conforms('get', `${BASE}/{id}`, one);
    conforms(
      'patch',
      `${BASE}/{id}`,
      await http.patch(`${BASE}/${id}`).set('Authorization', acme.auth).send({ url: 'http://127.0.0.1:9/other', enabled: false }),
      200,
    );
    const list = await http.get(BASE).set('Authorization', acme.auth);
    expect(list.body).toHaveLength(1);
    conforms('get', BASE, list);
    const key = await http.get(`${BASE}/public-key`).set('Authorization', acme.auth);
    conforms('get', `${BASE}/public-key`, key, 200);
    conforms('post', `${BASE}/public-key`, await http.post(`${BASE}/public-key`).set('Authorization', acme.auth), 201);
    conforms('post', BASE, await http.post(BASE).set('Authorization', acme.auth).send({ url: 'ftp://example.com/x' }), 400);
    conforms('delete', `${BASE}/{id}`, await http.delete(`${BASE}/${id}`).set('Authorization', acme.auth), 204);
    for (const [method, res] of [
      ['get', await http.get(`${BASE}/${id}`).set('Authorization', acme.auth)],
      ['patch', await http.patch(`${BASE}/${id}`).set('Authorization', acme.auth).send({ url: 'http://127.0.0.1:9/x' })],
      ['delete', await http.delete(`${BASE}/${id}`).set('Authorization', acme.auth)],
    ] as const) {
      conforms(method, `${BASE}/{id}`, res, 404);
    }
  });

  it('the benchmark summary after an import, and a refused filter', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/transactions/import-benchmark-summary';
    conforms('get', path, await http.get(path).set('Authorization', acme.auth), 200);
    const csv = [
      'type,status,provider,providerTransactionId,currency,country,corridor,benchmark,reviewState,reconciliation,amountUsd,costVsMarketUsd,createdAt,updatedAt',
      'Deposit,Completed,PfiOne,p-1,USDC,MX,US-MX,Competitive,AllClear,Matched,1000,-5,2026-01-10T10:00:00Z,2026-02-01T00:00:00Z',
      'Withdrawal,Completed,PfiTwo,p-2,MXN,MX,US-MX,InLine,NeedReview,Mismatched,2000,1.5,2026-01-31T23:59:59.999Z,',
      'Exchange,Failed,PfiTwo,p-3,BRL,BR,US-BR,OffMarket,ReconciliationIssues,PfiError,500,10.25,2026-02-01T00:00:00Z,',
    ].join('\n');
    expect((await importTransactions(ctx, acme.org.id, csv, 'csv')).imported).toBe(3);
    const summary = await http.get(path).set('Authorization', acme.auth);
    expect(summary.body.sampleSize).toBe(3);
    conforms('get', path, summary);
    conforms('get', path, await http.get(`${path}?fromDate=2026-01-01&type=Deposit`).set('Authorization', acme.auth), 200);
    conforms('get', path, await http.get(`${path}?fromDate=2026-01-01&toUpdatedDate=2026-02-01`).set('Authorization', acme.auth), 400);
  });

  it("the event stream's refusals, answered before any stream starts", async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/notifications/events/stream';
    conforms('get', path, await http.get(path).set('Authorization', acme.auth).set('Last-Event-ID', 'nope'), 400);
    conforms('get', path, await http.get(path), 401);
  });

  it('network and the deprecated deposit countries, a 401 on each', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    for (const path of ['/v1/organizations/network', '/v1/deposits/countries']) {
      conforms('get', path, await http.get(path).set('Authorization', acme.auth), 200);
      conforms('get', path, await http.get(path).set('Authorization', 'Bearer not-a-jwt'), 401);
    }
  });

  it("the outbox: deliveries, one with its attempts, health, events, blocked lines, retry, replay; the operator's too", async () => {
    const { ctx, http, org, receiver, webhookId, dispatcher } = await outboxSetup();
    const { conforms, doc } = await served(http);
    // The shapes the console reads are named once, and the answers refer to them.
    const schemas = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['Delivery', 'Attempt', 'WebhookHealth', 'OutboxEvent', 'DeliveryState']));
    receiver.setResponder((_r, res) => res.writeHead(500).end('down'));
    const { event } = await emitEvent(ctx, org.org.id, 'Transaction_Created', { status: 'Submitted' });
    await dispatcher.runOnce();
    const W = '/v1/notifications/webhooks/settings/{id}';
    const at = (path: string, id = webhookId) => path.replace('{id}', id);
    const list = await http.get(at(`${W}/deliveries`)).set('authorization', org.auth);
    conforms('get', `${W}/deliveries`, list, 200);
    const id = list.body.data[0].id as string;
    const one = await http.get(`/v1/notifications/deliveries/${id}`).set('authorization', org.auth);
    expect(one.body.attempts).toHaveLength(1);
    conforms('get', '/v1/notifications/deliveries/{id}', one, 200);
    conforms('get', `${W}/health`, await http.get(at(`${W}/health`)).set('authorization', org.auth), 200);
    conforms(
      'get',
      '/v1/notifications/webhooks/health',
      await http.get('/v1/notifications/webhooks/health').set('authorization', org.auth),
      200,
    );
    conforms('get', '/v1/notifications/events', await http.get('/v1/notifications/events').set('authorization', org.auth), 200);
    conforms('get', `${W}/blocked`, await http.get(at(`${W}/blocked`)).set('authorization', org.auth), 200);
    conforms(
      'post',
      '/v1/notifications/deliveries/{id}/retry',
      await http.post(`/v1/notifications/deliveries/${id}/retry`).set('authorization', org.auth),
      202,
    );
    const replay = await http
      .post(at(`${W}/replay`))
      .set('authorization', org.auth)
      .send({ eventIds: [event.id] });
    conforms('post', `${W}/replay`, replay, 200);
    const O = '/admin/v1/organizations/{orgId}/notifications';
    const operator = (path: string) => path.replace('{orgId}', org.org.id);
    conforms('get', `${O}/deliveries/{id}`, await http.get(operator(`${O}/deliveries/${id}`)).set('authorization', admin), 200);
    conforms('get', `${O}/events`, await http.get(operator(`${O}/events`)).set('authorization', admin), 200);
    conforms('get', '/admin/v1/organizations', await http.get('/admin/v1/organizations').set('authorization', admin), 200);
  });
});
