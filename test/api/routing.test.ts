import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../src/api/app.js';
import type { RouteModule } from '../../src/api/route.js';
import { TokenService } from '../../src/services/tokens.js';
import { ADMIN_TOKEN, makeContext, makeOrg } from '../support/context.js';

/**
 * Routes whose paths have no parameters are found by their exact text before the router runs
 * (src/api/app.ts). These pin that it answers exactly what the router alone would.
 */
const routes: RouteModule = (api) => {
  const reply = (which: string) => () => ({ body: { which } });
  const ok = { 200: { description: 'ok', schema: z.object({ which: z.string() }) } };
  api.route({
    method: 'get',
    path: '/v1/things/{id}',
    summary: 'by id',
    auth: 'none',
    params: z.object({ id: z.string() }),
    responses: ok,
    handler: ({ params }) => ({ body: { which: `id ${params.id}` } }),
  });
  // Registered after the parameter route that also matches it: the router takes that one.
  api.route({ method: 'get', path: '/v1/things/special', summary: 'shadowed', auth: 'none', responses: ok, handler: reply('special') });
  api.route({ method: 'get', path: '/v1/plain', summary: 'plain', auth: 'none', responses: ok, handler: reply('plain') });
  api.route({
    method: 'post',
    path: '/v1/plain',
    summary: 'plain write',
    auth: 'none',
    body: z.strictObject({ n: z.number() }),
    responses: ok,
    handler: ({ body }) => ({ body: { which: `posted ${body.n}` } }),
  });
  api.route({
    method: 'get',
    path: '/v1/secret',
    summary: 'needs a token',
    auth: 'bearer',
    responses: ok,
    handler: ({ auth }) => ({ body: { which: auth.orgId } }),
  });
  api.route({
    method: 'get',
    path: '/v1/old',
    summary: 'deprecated',
    auth: 'bearer',
    deprecated: { since: '2026-01-01', sunset: '2027-01-01', successor: '/v1/plain' },
    responses: ok,
    handler: reply('old'),
  });
};

async function setup() {
  const ctx = await makeContext();
  const tokens = new TokenService(ctx);
  const { app } = createApp({ ctx, tokens, adminToken: ADMIN_TOKEN }, [routes]);
  return { ctx, tokens, http: request(app) };
}

const requestLines = (ctx: Awaited<ReturnType<typeof setup>>['ctx']) =>
  ctx.logs.lines.filter((l) => l.msg === 'request').map((l) => [l.method, l.route, l.status]);

describe('routing', () => {
  it('answers a path without parameters, and its other spellings through the router, the same', async () => {
    const { http, ctx } = await setup();
    for (const path of ['/v1/plain', '/v1/plain/', '/V1/PLAIN']) {
      const res = await http.get(path);
      expect(res.status, path).toBe(200);
      expect(res.body).toEqual({ which: 'plain' });
    }
    const head = await http.head('/v1/plain');
    expect(head.status).toBe(200);
    expect((await http.post('/v1/plain').send({ n: 2 })).body).toEqual({ which: 'posted 2' });
    expect((await http.post('/v1/plain').send({ n: 'two' })).body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'body.n' }],
    });
    expect((await http.delete('/v1/plain')).status).toBe(405);
    expect(requestLines(ctx)).toEqual([
      ['GET', '/v1/plain', 200],
      ['GET', '/v1/plain', 200],
      ['GET', '/v1/plain', 200],
      ['HEAD', '/v1/plain', 200],
      ['POST', '/v1/plain', 200],
      ['POST', '/v1/plain', 400],
      ['DELETE', '/v1/plain', 405],
    ]);
  });

  it('gives a path that an earlier parameter route matches to that route, as the router does', async () => {
    const { http } = await setup();
    expect((await http.get('/v1/things/special')).body).toEqual({ which: 'id special' });
    expect((await http.get('/v1/things/other')).body).toEqual({ which: 'id other' });
  });

  it('authenticates, announces deprecation before authentication, and answers errors as problems', async () => {
    const { http, ctx, tokens } = await setup();
    const missing = await http.get('/v1/secret');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expect(missing.body).toMatchObject({ code: 'missing_token', status: 401 });
    const org = await makeOrg(ctx, tokens);
    expect((await http.get('/v1/secret').set('Authorization', org.auth)).body).toEqual({ which: org.org.id });
    const old = await http.get('/v1/old');
    expect(old.status).toBe(401);
    expect(old.headers.deprecation).toMatch(/^@\d+$/);
    expect(old.headers.link).toBe('</v1/plain>; rel="successor-version"');
    expect((await http.get('/v1/nowhere')).body).toMatchObject({ code: 'route_not_found' });
  });
});
