import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'supertest';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { createIdentity } from '../../src/services/identities.js';
import { importTransactions } from '../../src/services/transaction-import.js';

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
  ajv.addVocabulary(['openapi', 'info', 'paths', 'components', 'servers', 'security', 'tags', 'webhooks', 'jsonSchemaDialect', 'externalDocs', 'discriminator', 'xml', 'example']);
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
  const ctx = makeContext(flags, '2026-03-01T00:00:00.000Z');
  const api = makeApi(ctx);
  const served = await api.http.get('/openapi.json');
  expect(served.status).toBe(200);
  const doc = served.body as Doc;
  const schemaAt = documentValidator(doc);

  /**
   * The answer `res` of `method path` (the documented path template) matches the document: its
   * status is documented (an error status may fall to `default`), its content type is one the
   * document gives for it, and its body validates against that media type's schema.
   */
  const conforms = (method: string, path: string, res: Response) => {
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
    const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
    expect(Object.keys(content), `${method} ${path} ${status}: content type`).toContain(mediaType);
    const validate = schemaAt(['paths', path, method, 'responses', key!, 'content', mediaType, 'schema']);
    const ok = validate(JSON.parse(res.text));
    expect(ok ? [] : validate.errors, `${method} ${path} ${status}: ${res.text}`).toEqual([]);
  };
  return { ctx, ...api, doc, conforms };
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
    const fake = (status: number, type: string, body: unknown) => ({ status, text: JSON.stringify(body), headers: { 'content-type': type } }) as unknown as Response;
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
    const ok = await http.post(path).send({ clientId: client.id, clientSecret: client.clientSecret });
    expect(ok.status).toBe(201);
    conforms('post', path, ok);
    const redacted = await http.post(path).send({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'redacted' });
    expect(redacted.body.piiAccess).toBe('redacted');
    conforms('post', path, redacted);
    const wrong = await http.post(path).send({ clientId: client.id, clientSecret: 'bsk_nope' });
    expect(wrong.status).toBe(401);
    conforms('post', path, wrong);
    const invalid = await http.post(path).send({ clientId: client.id });
    expect(invalid.status).toBe(400);
    conforms('post', path, invalid);
    const limited = await makeOrg(ctx, tokens, { name: 'Limited', piiAccess: 'redacted' });
    const denied = await http.post(path).send({ clientId: limited.client.id, clientSecret: limited.client.clientSecret, piiAccess: 'all' });
    expect(denied.status).toBe(403);
    conforms('post', path, denied);
  });

  it('errors raised before any route: malformed JSON, a body not JSON, a body too large', async () => {
    const { http, ctx, tokens, conforms } = await setup({ 'server.bodyLimitBytes': 1024 });
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/refunds/config';
    const malformed = await http.post(path).set('Authorization', acme.auth).set('Content-Type', 'application/json').send('{"type":');
    expect([malformed.status, malformed.body.code]).toEqual([400, 'malformed_json']);
    conforms('post', path, malformed);
    const text = await http.post(path).set('Authorization', acme.auth).set('Content-Type', 'text/plain').send('type=Source');
    expect(text.status).toBe(415);
    conforms('post', path, text);
    const large = await http.post(path).set('Authorization', acme.auth).send({ type: 'Source', pad: 'x'.repeat(2048) });
    expect(large.status).toBe(413);
    conforms('post', path, large);
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
      firstName: 'Ana', lastName: 'García', secondLastName: 'Ruiz', middleName: 'Lu', taxId: 'ABC12345', dateOfBirth: '1990-02-03',
      email: 'ana.g@example.com', phone: '+5215512345678', activity: 'Trade', sex: 'Female', nameInLocalScript: 'アナ', employerName: 'Acme',
      address: { id: 'adr_1', street1: 'Calle 5', street2: 'Int 2', city: 'CDMX', state: 'CDMX', country: 'MX', postalCode: '06700' },
      documents: [{ id: 'doc_1', type: 'Passport', subType: 'UtilityBill', idNumber: 'P1234567', issuingCountry: 'MX', issuedDate: '2020-01-01', expiryDate: '2030-01-01' }],
      occupationCode: '123456', employmentStatus: 'Employed', sourceOfFunds: 'CompanyFunds', sourceOfWealth: 'BusinessDividendsOrProfits',
      accountPurpose: 'CharitableDonations', accountPurposeOther: 'gifts', monthlyAmounts: 'LessThan5K', actingAsIntermediary: false,
      citizenship: 'MX', nationalities: ['MX', 'ES'], placeOfBirthCountry: 'MX', placeOfBirthCity: 'Puebla', hasForeignTaxRegistration: false,
    };
    for (const org of [full, red]) {
      createIdentity(ctx, org.org.id, { type: 'Personal', deleted: false, hasComplianceChecks: true, data });
      createIdentity(ctx, org.org.id, { type: 'Business', deleted: true, hasComplianceChecks: false, data: { firstName: 'A', email: 'a@x.com', taxId: '12' } });
    }
    // The operator's routes that create an identity and set its flags answer the same record.
    const made = await http.post(`/admin/v1/organizations/${full.org.id}/identities`).set('Authorization', admin).send({ type: 'Personal', data });
    expect(made.status).toBe(201);
    conforms('post', '/admin/v1/organizations/{orgId}/identities', made);
    const flagged = await http.patch(`/admin/v1/organizations/${full.org.id}/identities/${made.body.id}`).set('Authorization', admin).send({ deleted: true });
    expect(flagged.status).toBe(200);
    conforms('patch', '/admin/v1/organizations/{orgId}/identities/{id}', flagged);
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
    const bad = await http.get('/v1/identities?limit=0').set('Authorization', full.auth);
    expect(bad.status).toBe(400);
    conforms('get', '/v1/identities', bad);
    const forbidden = await http.get('/v1/identities?name=an').set('Authorization', red.auth);
    expect(forbidden.status).toBe(403);
    conforms('get', '/v1/identities', forbidden);
    const anonymous = await http.get('/v1/identities');
    expect(anonymous.status).toBe(401);
    conforms('get', '/v1/identities', anonymous);
  });

  it.each([false, true])('accounts (legacy fields %s) and the 404', async (legacyFields) => {
    const { http, ctx, tokens, conforms } = await setup({ 'accounts.legacyFields': legacyFields });
    const acme = await makeOrg(ctx, tokens);
    const identity = createIdentity(ctx, acme.org.id, { type: 'Personal', deleted: false, hasComplianceChecks: false, data: { firstName: 'Ana' } });
    for (const body of [
      { provider: 'Standalone', name: 'Treasury', assets: [{ asset: 'USDC', address: EVM }], fiats: [{ fiat: 'MXN' }], type: 'wallet', pfi: 'SomePfi', web3Provider: 'Standalone' },
      { provider: 'Standalone', name: 'Bare', identityId: identity.id },
    ]) {
      const created = await http.post(`/admin/v1/organizations/${acme.org.id}/accounts`).set('Authorization', admin).send(body);
      expect(created.status).toBe(201);
      conforms('post', '/admin/v1/organizations/{orgId}/accounts', created);
      const res = await http.get(`/v1/accounts/${created.body.id}`).set('Authorization', acme.auth);
      expect(res.status).toBe(200);
      conforms('get', '/v1/accounts/{id}', res);
    }
    const missing = await http.get('/v1/accounts/acc_nope').set('Authorization', acme.auth);
    expect(missing.status).toBe(404);
    conforms('get', '/v1/accounts/{id}', missing);
  });

  it('refund configuration: null, set, read, reconfirm and refusals', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/refunds/config';
    const none = await http.get(path).set('Authorization', acme.auth);
    expect(none.text).toBe('null');
    conforms('get', path, none);
    const noDefault = await http.post(`${path}/reconfirm`).set('Authorization', acme.auth);
    expect(noDefault.status).toBe(404);
    conforms('post', `${path}/reconfirm`, noDefault);
    for (const body of [{ type: 'Address', addresses: [{ network: 'ETHEREUM', address: EVM }] }, { type: 'Source', autoRefund: false, autoFiatReturn: true }, { type: 'ProviderBalance' }]) {
      const set = await http.post(path).set('Authorization', acme.auth).send(body);
      expect(set.status).toBe(200);
      conforms('post', path, set);
      const read = await http.get(path).set('Authorization', acme.auth);
      expect(read.body.destination.type).toBe(body.type);
      conforms('get', path, read);
    }
    const reconfirmed = await http.post(`${path}/reconfirm`).set('Authorization', acme.auth);
    expect(reconfirmed.status).toBe(200);
    conforms('post', `${path}/reconfirm`, reconfirmed);
    const refused = await http.post(path).set('Authorization', acme.auth).send({ type: 'Address', addresses: [{ network: 'ETHEREUM', address: 'nope' }] });
    expect(refused.status).toBe(400);
    conforms('post', path, refused);
  });

  it('webhook settings and the public key', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const BASE = '/v1/notifications/webhooks/settings';
    const noKey = await http.get(`${BASE}/public-key`).set('Authorization', acme.auth);
    expect(noKey.status).toBe(404);
    conforms('get', `${BASE}/public-key`, noKey);
    const created = await http.post(BASE).set('Authorization', acme.auth).send({ url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    conforms('post', BASE, created);
    const id = created.body.id as string;
    const one = await http.get(`${BASE}/${id}`).set('Authorization', acme.auth);
    conforms('get', `${BASE}/{id}`, one);
    const patched = await http.patch(`${BASE}/${id}`).set('Authorization', acme.auth).send({ url: 'http://127.0.0.1:9/other', enabled: false });
    expect(patched.status).toBe(200);
    conforms('patch', `${BASE}/{id}`, patched);
    const list = await http.get(BASE).set('Authorization', acme.auth);
    expect(list.body).toHaveLength(1);
    conforms('get', BASE, list);
    const key = await http.get(`${BASE}/public-key`).set('Authorization', acme.auth);
    expect(key.status).toBe(200);
    conforms('get', `${BASE}/public-key`, key);
    const rotated = await http.post(`${BASE}/public-key`).set('Authorization', acme.auth);
    expect(rotated.status).toBe(201);
    conforms('post', `${BASE}/public-key`, rotated);
    const badUrl = await http.post(BASE).set('Authorization', acme.auth).send({ url: 'ftp://example.com/x' });
    expect(badUrl.status).toBe(400);
    conforms('post', BASE, badUrl);
    const deleted = await http.delete(`${BASE}/${id}`).set('Authorization', acme.auth);
    expect(deleted.status).toBe(204);
    conforms('delete', `${BASE}/{id}`, deleted);
    for (const [method, res] of [
      ['get', await http.get(`${BASE}/${id}`).set('Authorization', acme.auth)],
      ['patch', await http.patch(`${BASE}/${id}`).set('Authorization', acme.auth).send({ url: 'http://127.0.0.1:9/x' })],
      ['delete', await http.delete(`${BASE}/${id}`).set('Authorization', acme.auth)],
    ] as const) {
      expect(res.status).toBe(404);
      conforms(method, `${BASE}/{id}`, res);
    }
  });

  it('the benchmark summary after an import, and a refused filter', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/transactions/import-benchmark-summary';
    const empty = await http.get(path).set('Authorization', acme.auth);
    expect(empty.status).toBe(200);
    conforms('get', path, empty);
    const csv = [
      'type,status,provider,providerTransactionId,currency,country,corridor,benchmark,reviewState,reconciliation,amountUsd,costVsMarketUsd,createdAt,updatedAt',
      'Deposit,Completed,PfiOne,p-1,USDC,MX,US-MX,Competitive,AllClear,Matched,1000,-5,2026-01-10T10:00:00Z,2026-02-01T00:00:00Z',
      'Withdrawal,Completed,PfiTwo,p-2,MXN,MX,US-MX,InLine,NeedReview,Mismatched,2000,1.5,2026-01-31T23:59:59.999Z,',
      'Exchange,Failed,PfiTwo,p-3,BRL,BR,US-BR,OffMarket,ReconciliationIssues,PfiError,500,10.25,2026-02-01T00:00:00Z,',
    ].join('\n');
    expect(importTransactions(ctx, acme.org.id, csv, 'csv').imported).toBe(3);
    const summary = await http.get(path).set('Authorization', acme.auth);
    expect(summary.body.sampleSize).toBe(3);
    conforms('get', path, summary);
    const filtered = await http.get(`${path}?fromDate=2026-01-01&type=Deposit`).set('Authorization', acme.auth);
    expect(filtered.status).toBe(200);
    conforms('get', path, filtered);
    const mixed = await http.get(`${path}?fromDate=2026-01-01&toUpdatedDate=2026-02-01`).set('Authorization', acme.auth);
    expect(mixed.status).toBe(400);
    conforms('get', path, mixed);
  });

  it("the event stream's refusals, answered before any stream starts", async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    const path = '/v1/notifications/events/stream';
    const bad = await http.get(path).set('Authorization', acme.auth).set('Last-Event-ID', 'nope');
    expect(bad.status).toBe(400);
    conforms('get', path, bad);
    const anonymous = await http.get(path);
    expect(anonymous.status).toBe(401);
    conforms('get', path, anonymous);
  });

  it('network and the deprecated deposit countries, a 401 on each', async () => {
    const { http, ctx, tokens, conforms } = await setup();
    const acme = await makeOrg(ctx, tokens);
    for (const path of ['/v1/organizations/network', '/v1/deposits/countries']) {
      const res = await http.get(path).set('Authorization', acme.auth);
      expect(res.status).toBe(200);
      conforms('get', path, res);
      const bad = await http.get(path).set('Authorization', 'Bearer not-a-jwt');
      expect(bad.status).toBe(401);
      conforms('get', path, bad);
    }
  });
});
