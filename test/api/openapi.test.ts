import { describe, expect, it } from 'vitest';
import { makeApi, makeContext, makeOrg } from '../support/context.js';

describe('/openapi.json', () => {
  it('describes every route the daemon mounts, with its auth', async () => {
    const ctx = await makeContext();
    const { http, registry } = makeApi(ctx);
    const res = await http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(res.body.paths as Record<string, Record<string, { security: unknown[] }>>)) {
      for (const method of Object.keys(ops)) documented.add(`${method} ${path}`);
    }
    const mounted = registry.routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(mounted)).toEqual(documented);
    // The spec's endpoints are all there.
    for (const route of [
      'post /v1/auth/m2m/token',
      'get /v1/refunds/config',
      'put /v1/organizations/integrations/provider-a',
      'put /v1/organizations/integrations/provider-b',
      'put /v1/organizations/integrations/provider-c',
      'post /v1/webhooks/card-network',
      'get /v1/identities',
      'get /v1/transactions/import-benchmark-summary',
      'get /v1/accounts/{id}',
      'get /v1/deposits/countries',
      'post /v1/notifications/webhooks/settings',
      'patch /v1/notifications/webhooks/settings/{id}',
      'get /v1/notifications/webhooks/settings/{id}',
      'get /v1/notifications/webhooks/settings',
      'delete /v1/notifications/webhooks/settings/{id}',
      'post /v1/notifications/webhooks/settings/public-key',
      'get /v1/notifications/webhooks/settings/public-key',
    ]) {
      expect(documented, route).toContain(route);
    }
    expect(res.body.paths['/v1/identities'].get.security).toEqual([{ bearer: [] }]);
    expect(res.body.paths['/v1/auth/m2m/token'].post.security).toEqual([]);
    expect(res.body.paths['/v1/deposits/countries'].get.deprecated).toBe(true);
  });

  it("describes identities' limit as the spec has it: an integer from 1 to 100, 10 by default", async () => {
    const { http } = makeApi(await makeContext());
    const res = await http.get('/openapi.json');
    const limit = (res.body.paths['/v1/identities'].get.parameters as { name: string }[]).find((p) => p.name === 'limit');
    expect(limit).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    });
  });

  it('publishes the limits the server applies: the configured url length, the date pattern, the 400 of a PATCH', async () => {
    const ctx = await makeContext({ 'webhooks.maxUrlLength': 300 });
    const { http, tokens } = makeApi(ctx);
    const doc = (await http.get('/openapi.json')).body;
    const settings = doc.paths['/v1/notifications/webhooks/settings'];
    const url = settings.post.requestBody.content['application/json'].schema.properties.url;
    expect(url).toMatchObject({ type: 'string', minLength: 1, maxLength: 300 });
    expect(Object.keys(doc.paths['/v1/notifications/webhooks/settings/{id}'].patch.responses)).toContain('400');
    const from = (
      doc.paths['/v1/transactions/import-benchmark-summary'].get.parameters as { name: string; schema: { pattern?: string } }[]
    ).find((p) => p.name === 'fromDate');
    expect(from?.schema.pattern).toBe('^\\d{4}-\\d{2}-\\d{2}$');
    // And the server applies them: 301 characters is refused, naming the setting.
    const { auth } = await makeOrg(ctx, tokens);
    const long = await http
      .post('/v1/notifications/webhooks/settings')
      .set('authorization', auth)
      .send({ url: `http://127.0.0.1:9/${'a'.repeat(300 - 19 + 1)}` });
    expect([long.status, long.body.errors]).toEqual([
      400,
      [{ path: 'body.url', message: 'must be at most 300 characters (webhooks.maxUrlLength)' }],
    ]);
  });
});
