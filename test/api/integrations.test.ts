import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialsContext } from '../../src/services/integrations.js';
import { listIntegrations } from '../../src/store/integrations.js';
import { makeApi, makeContext, makeOrg } from '../support/context.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A fake provider on 127.0.0.1: records requests and answers what the test says. */
async function fakeProvider(answer: (req: Seen) => { status: number; body?: unknown }) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(s);
      const a = answer(s);
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`, seen };
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function setup(providers: Record<string, unknown>, more: Record<string, unknown> = {}) {
  const ctx = await makeContext({ 'integrations.providers': providers, ...more });
  const api = makeApi(ctx);
  const acme = await makeOrg(ctx, api.tokens);
  return { ctx, ...api, acme };
}

describe('PUT /v1/organizations/integrations/{provider}', () => {
  it('company credentials: calls the provider, returns its addresses, seals the credentials, logs no secret', async () => {
    const fake = await fakeProvider(() => ({
      status: 200,
      body: { integrationNetworkAddresses: [{ network: 'POLYGON', address: '0xabc', extra: 1 }] },
    }));
    const { ctx, http, acme } = await setup({
      acme: { kind: 'company-credentials', deprecated: true, sunset: '2027-01-01', baseUrl: fake.url },
    });
    const res = await http
      .put('/v1/organizations/integrations/acme')
      .set('Authorization', acme.auth)
      .send({ apiKey: 'key-123456', apiSecret: 'secret-ABCDEFG', companyId: 'co 42' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ provider: 'acme', integrationNetworkAddresses: [{ network: 'POLYGON', address: '0xabc' }] });
    expect(res.headers.deprecation).toMatch(/^@\d+$/);
    expect(res.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]).toMatchObject({ method: 'POST', url: '/api/companies/co%2042/integration' });
    expect(fake.seen[0]!.headers['x-api-key']).toBe('key-123456');
    const [row, ...others] = await listIntegrations(ctx.db, acme.org.id);
    expect(others).toEqual([]);
    expect(row!.kind).toBe('company-credentials');
    expect(row!.credentialsEnc).not.toContain('secret-ABCDEFG');
    expect(JSON.parse(ctx.secrets.open(row!.credentialsEnc, credentialsContext(acme.org.id, 'acme')))).toEqual({
      apiKey: 'key-123456',
      apiSecret: 'secret-ABCDEFG',
      companyId: 'co 42',
    });
    expect(() => ctx.secrets.open(row!.credentialsEnc, credentialsContext('org_other', 'acme'))).toThrow();
    expect(ctx.logs.text()).not.toContain('secret-ABCDEFG');
    expect(ctx.logs.text()).not.toContain('key-123456');
  });

  it('company credentials: a companyId of "." or ".." is refused, not resolved into another provider path', async () => {
    const fake = await fakeProvider(() => ({ status: 200, body: { integrationNetworkAddresses: [] } }));
    const { http, acme } = await setup({ acme: { kind: 'company-credentials', baseUrl: fake.url } });
    for (const companyId of ['..', '.']) {
      const res = await http
        .put('/v1/organizations/integrations/acme')
        .set('Authorization', acme.auth)
        .send({ apiKey: 'key-123456', apiSecret: 'secret-ABCDEFG', companyId });
      expect(res.status, companyId).toBe(400);
      expect(res.body.errors[0].path).toBe('body.companyId');
    }
    // "companies/../integration" would have been POSTed to {baseUrl}integration.
    expect(fake.seen).toEqual([]);
  });

  it('company credentials: a key or secret that cannot be a header value is a 400 naming it, not a provider outage', async () => {
    const fake = await fakeProvider(() => ({ status: 200, body: { integrationNetworkAddresses: [] } }));
    const { http, acme } = await setup({ acme: { kind: 'company-credentials', baseUrl: fake.url } });
    for (const [field, value] of [
      ['apiKey', 'key\r\nx-injected: 1'],
      ['apiSecret', ' secret'],
      ['apiKey', 'clé-123456'],
    ] as const) {
      const res = await http
        .put('/v1/organizations/integrations/acme')
        .set('Authorization', acme.auth)
        .send({ apiKey: 'key-123456', apiSecret: 'secret-ABCDEFG', companyId: 'c1', [field]: value });
      expect([res.status, res.body.errors?.[0]?.path], value).toEqual([400, `body.${field}`]);
    }
    expect(fake.seen).toEqual([]);
  });

  it('PFI client credentials: 10 to 64 characters each, verified at the provider', async () => {
    const fake = await fakeProvider((req) => ({
      status: req.headers.authorization === `Basic ${Buffer.from('client-0001:secret-0001').toString('base64')}` ? 200 : 401,
      body: {},
    }));
    const { http, acme } = await setup({ pfi: { kind: 'pfi-client-credentials', baseUrl: fake.url } });
    const ok = await http
      .put('/v1/organizations/integrations/pfi')
      .set('Authorization', acme.auth)
      .send({ clientId: 'client-0001', clientSecret: 'secret-0001' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ clientId: 'client-0001', clientSecret: 'secret-0001' });
    expect(ok.headers.deprecation).toBeUndefined();
    expect(fake.seen[0]).toMatchObject({ url: '/api/oauth/token', body: 'grant_type=client_credentials' });
    const refused = await http
      .put('/v1/organizations/integrations/pfi')
      .set('Authorization', acme.auth)
      .send({ clientId: 'client-0002', clientSecret: 'secret-0002' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('provider_rejected_credentials');
    const short = await http
      .put('/v1/organizations/integrations/pfi')
      .set('Authorization', acme.auth)
      .send({ clientId: '123456789', clientSecret: 'x'.repeat(65) });
    expect(short.status).toBe(400);
    expect(short.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.clientId', 'body.clientSecret']);
    // A ":" would end the Basic user-id early and move the rest into the password.
    const colon = await http
      .put('/v1/organizations/integrations/pfi')
      .set('Authorization', acme.auth)
      .send({ clientId: 'client:0001', clientSecret: 'secret-0001' });
    expect([colon.status, colon.body.errors[0].path]).toEqual([400, 'body.clientId']);
    expect(fake.seen).toHaveLength(2);
  });

  it('partner key: 202, and a provider error is a 502 with nothing stored', async () => {
    let status = 500;
    const fake = await fakeProvider(() => ({ status }));
    const { ctx, http, acme } = await setup({ partner: { kind: 'partner-key', deprecated: true, baseUrl: fake.url } });
    const failed = await http
      .put('/v1/organizations/integrations/partner')
      .set('Authorization', acme.auth)
      .send({ apiKey: 'k', apiSecret: 's' });
    expect(failed.status).toBe(502);
    expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(failed.body).toMatchObject({ status: 502, title: 'Bad Gateway', code: 'provider_error' });
    expect(await listIntegrations(ctx.db, acme.org.id)).toEqual([]);
    status = 201;
    const res = await http
      .put('/v1/organizations/integrations/partner')
      .set('Authorization', acme.auth)
      .send({ apiKey: 'k', apiSecret: 's' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ provider: 'partner', kind: 'partner-key', id: expect.stringMatching(/^int_/) });
    expect(JSON.parse(fake.seen[1]!.body)).toEqual({ apiKey: 'k', apiSecret: 's' });
  });

  it('stores without a call when no baseUrl is configured; unknown providers are 404', async () => {
    const { ctx, http, acme } = await setup({ 'provider-a': { kind: 'company-credentials' } });
    const res = await http
      .put('/v1/organizations/integrations/provider-a')
      .set('Authorization', acme.auth)
      .send({ apiKey: 'a', apiSecret: 'b', companyId: 'c' });
    expect(res.body).toEqual({ provider: 'provider-a', integrationNetworkAddresses: [] });
    expect(await listIntegrations(ctx.db, acme.org.id)).toHaveLength(1);
    expect((await http.put('/v1/organizations/integrations/provider-z').set('Authorization', acme.auth).send({})).status).toBe(404);
    const unknownField = await http
      .put('/v1/organizations/integrations/provider-a')
      .set('Authorization', acme.auth)
      .send({ apiKey: 'a', apiSecret: 'b' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.errors[0].path).toBe('body.companyId');
  });

  it('answers 502 when the provider is unreachable', async () => {
    const fake = await fakeProvider(() => ({ status: 200 }));
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
    const { http, acme } = await setup({ p: { kind: 'partner-key', baseUrl: fake.url } });
    const res = await http.put('/v1/organizations/integrations/p').set('Authorization', acme.auth).send({ apiKey: 'k', apiSecret: 's' });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('provider_unreachable');
  });
});

describe('a provider that misbehaves mid-answer', () => {
  /** A provider on 127.0.0.1 that answers 200 and then does what `rest` does with the response. */
  async function rawProvider(rest: (res: import('node:http').ServerResponse) => void) {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        rest(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  }

  it('is a 502 when the connection breaks inside its answer, not a 500, and stores nothing', async () => {
    const url = await rawProvider((res) => {
      res.write('{"integrationNetworkAddresses": [');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { ctx, http, acme } = await setup({ p: { kind: 'partner-key', baseUrl: url } });
    const res = await http.put('/v1/organizations/integrations/p').set('Authorization', acme.auth).send({ apiKey: 'k', apiSecret: 's' });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('provider_unreachable');
    expect(await listIntegrations(ctx.db, acme.org.id)).toEqual([]);
    expect(ctx.logs.text()).not.toMatch(/unexpected error/);
  });

  it('is a 502 when its answer trickles on past integrations.timeoutMs: the timeout bounds the whole call', async () => {
    const url = await rawProvider((res) => {
      res.write('{"integrationNetworkAddresses": [');
      // A byte every 50 ms: never idle long enough for a timeout between chunks to fire.
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    });
    const { ctx, http, acme } = await setup({ p: { kind: 'partner-key', baseUrl: url } }, { 'integrations.timeoutMs': 500 });
    const res = await http.put('/v1/organizations/integrations/p').set('Authorization', acme.auth).send({ apiKey: 'k', apiSecret: 's' });
    expect([res.status, res.body.code]).toEqual([502, 'provider_unreachable']);
    expect(res.body.detail).toBe('the provider did not answer in full within 500 ms (integrations.timeoutMs)');
    expect(await listIntegrations(ctx.db, acme.org.id)).toEqual([]);
  });

  it('is a 502 when its answer is larger than any provider answer needs, read no further', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    let written = 0;
    const url = await rawProvider((res) => {
      const more = (): void => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => (written = Infinity));
      more();
    });
    const { http, acme } = await setup({ p: { kind: 'partner-key', baseUrl: url } });
    const res = await http.put('/v1/organizations/integrations/p').set('Authorization', acme.auth).send({ apiKey: 'k', apiSecret: 's' });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('provider_error');
    expect(res.body.detail).toMatch(/larger than/);
  });
});

describe('network and deposit countries', () => {
  it('serves the network from config and the deprecated countries list', async () => {
    const ctx = await makeContext({
      'network.depositCountries': ['MX', 'BR'],
      'network.networks': [
        { network: 'TRON', assets: ['USDT'] },
        { network: 'BASE', assets: ['USDC', 'USDT'] },
      ],
    });
    const { http, tokens } = makeApi(ctx);
    const acme = await makeOrg(ctx, tokens);
    const net = await http.get('/v1/organizations/network').set('Authorization', acme.auth);
    expect(net.body).toEqual({
      countries: ['BR', 'MX'],
      networks: [
        { network: 'TRON', assets: ['USDT'] },
        { network: 'BASE', assets: ['USDC', 'USDT'] },
      ],
      assets: ['USDC', 'USDT'],
    });
    expect(net.headers.deprecation).toBeUndefined();
    const countries = await http.get('/v1/deposits/countries').set('Authorization', acme.auth);
    expect(countries.body).toEqual(['BR', 'MX']);
    expect(countries.headers.deprecation).toBe('@1767225600');
    expect(countries.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(countries.headers.link).toBe('</v1/organizations/network>; rel="successor-version"');
    const unauthorized = await http.get('/v1/deposits/countries');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.deprecation).toBe('@1767225600');
    expect(unauthorized.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
  });

  it('describes every provider route in /openapi.json', async () => {
    const ctx = await makeContext();
    const { http } = makeApi(ctx);
    const doc = (await http.get('/openapi.json')).body;
    for (const p of [
      '/v1/organizations/integrations/provider-a',
      '/v1/organizations/integrations/provider-b',
      '/v1/organizations/integrations/provider-c',
    ])
      expect(doc.paths[p].put).toBeDefined();
    expect(doc.paths['/v1/organizations/integrations/provider-a'].put.deprecated).toBe(true);
    expect(doc.paths['/v1/organizations/integrations/provider-b'].put.deprecated).toBeFalsy();
    expect(doc.paths['/v1/identities'].get).toBeDefined();
  });
});
